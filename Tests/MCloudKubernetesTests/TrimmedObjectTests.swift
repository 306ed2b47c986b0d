import MCloudCore
@testable import MCloudKubernetesProvider
import Testing

/// What refresh keeps of a live object, so that it compares with the rendered body field by field.
@Suite struct TrimmedObjectTests {
    /// The API server gives a slice's empty endpoints back as null, where rendering writes `[]` (the schema requires
    /// the field): read as `[]`, an unchanged empty slice is no change. Only a slice's, and only when null.
    @Test(arguments: [
        (#"{"kind":"EndpointSlice","endpoints":null,"status":{}}"#, #"{"kind":"EndpointSlice","endpoints":[]}"#),
        (#"{"kind":"EndpointSlice","endpoints":[{"addresses":["10.0.0.5"]}]}"#, #"{"kind":"EndpointSlice","endpoints":[{"addresses":["10.0.0.5"]}]}"#),
        (#"{"kind":"ConfigMap","endpoints":null}"#, #"{"kind":"ConfigMap","endpoints":null}"#),
    ])
    func aSlicesNullEndpointsAreAnEmptyList(_ live: String, _ kept: String) throws {
        #expect(KubernetesResourceProvider.trimmed(try JSONParser.parse(live)).serialized(pretty: false) == kept)
    }
}
