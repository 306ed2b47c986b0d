import Foundation
import MCloudCore
import MCloudDatabaseEngines
@testable import MCloudKubernetesProvider
import MCloudProvider
import MCloudSecrets
import Testing

/// What the provider sends and reports of a Secret: the derived values go out in the apply, and every value read back
/// is masked, as the derived one or as one that differs from it.
@Suite struct ConnectionSecretValuesTests {
    static let identity = try? AgeIdentity(secretKey: [UInt8](repeating: 6, count: 32))
    static let edge = ClientAccess.Edge(
        application: "shop", cell: "orders-db", service: "orders", engine: .redis, host: "orders-db.shop.svc", port: 6379, user: "orders",
        database: "orders", authorityPath: "/etc/mcloud/tls/orders-db/ca.crt"
    )

    static func keyFile() throws -> String {
        let path = NSTemporaryDirectory() + "mcloud-values-\(UUID().uuidString.prefix(8)).key"
        try Data("\(try #require(identity).encoded)\n".utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func secret(annotation: String?, data: [(String, String)]) -> JSONValue {
        var metadata: [(String, JSONValue)] = [("name", .string("orders-db-orders")), ("namespace", .string("shop"))]
        if let annotation { metadata.append(("annotations", .object([(ClientAccess.Edge.annotation, .string(annotation))]))) }
        return .object([
            ("apiVersion", .string("v1")), ("kind", .string("Secret")), ("metadata", .object(metadata)),
            ("data", .object(data.map { ($0.0, .string($0.1)) })),
        ])
    }

    @Test func theAppliedBodyCarriesTheDerivedValuesInBase64() async throws {
        let values = ConnectionSecretValues(environment: ["MCLOUD_AGE_KEY_FILE": try Self.keyFile()])
        let filled = try await values.filled(Self.secret(annotation: Self.edge.annotationValue, data: [("password", SecretRedaction.markerText)]))
        let access = try ClientAccess(root: SecretRoot(identity: try #require(Self.identity)), edge: Self.edge)
        #expect(filled["data"]?["password"]?.stringValue == Data(access.password.value.utf8).base64EncodedString())
        #expect(filled["data"]?["uri"]?.stringValue == Data(access.uri.utf8).base64EncodedString())
        #expect(filled["data"]?.objectPairs.map(\.0) == ClientAccess.dataKeys(Self.edge))
    }

    /// (identity given, annotation, value in the cluster, what is reported, warnings)
    @Test(arguments: [
        (true, true, "derived", SecretRedaction.markerText, 0),
        (true, true, "changed", ConnectionSecretValues.differs, 0),
        (false, true, "changed", SecretRedaction.markerText, 0),
        (true, false, "changed", SecretRedaction.markerText, 0),
    ])
    func aValueReadBackIsMaskedAndComparedWhereItCanBe(_ withIdentity: Bool, _ annotated: Bool, _ value: String, _ reported: String, _ warnings: Int) async throws {
        let values = ConnectionSecretValues(environment: ["MCLOUD_AGE_KEY_FILE": withIdentity ? try Self.keyFile() : "/nonexistent/age.key"])
        let access = try ClientAccess(root: SecretRoot(identity: try #require(Self.identity)), edge: Self.edge)
        let password = value == "derived" ? access.password.value : "not-the-password"
        let read = Self.secret(annotation: annotated ? Self.edge.annotationValue : nil, data: [("password", Data(password.utf8).base64EncodedString())])
        let (masked, found) = await values.masked(read)
        #expect(masked["data"]?["password"]?.stringValue == reported)
        #expect(found.count == warnings)
        #expect(!masked.serialized(pretty: false).contains(Data(password.utf8).base64EncodedString()))
    }

    @Test func anAnnotationMcloudDidNotWriteIsAWarningAndTheValuesStayMasked() async throws {
        let values = ConnectionSecretValues(environment: ["MCLOUD_AGE_KEY_FILE": try Self.keyFile()])
        let (masked, warnings) = await values.masked(Self.secret(annotation: "{}", data: [("password", "c2VjcmV0")]))
        #expect(masked["data"]?["password"] == SecretRedaction.marker)
        #expect(warnings == ["the Secret shop/orders-db-orders: the mcloud.io/connection annotation has no engine"])
    }

    @Test func anythingButASecretPassesAsItIs() async throws {
        let values = ConnectionSecretValues(environment: [:])
        let map: JSONValue = .object([("kind", .string("ConfigMap")), ("data", .object([("password", .string("plain"))]))])
        #expect(try await values.filled(map) == map)
        #expect(await values.masked(map).object == map)
    }
}
