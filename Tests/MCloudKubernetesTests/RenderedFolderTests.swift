import Foundation
import MCloudCore
import MCloudKubernetes
import MCloudManifest
import MCloudPlanner
import MCloudRender
import Testing

/// A rendered cluster folder of the retail-bank example, applied to the real API server of the test bed.
@Suite(.serialized) struct RenderedFolderTests {
    static let root = String(#filePath.split(separator: "/Tests/")[0])

    @Test func aRenderedClusterFolderAppliesAndASecondApplyChangesNothing() async throws {
        let model = try #require(ManifestLoader.load(paths: ["\(Self.root)/Manifests/retail-bank"], providers: "\(Self.root)/Providers").model)
        let plan = try Planner.plan(model, options: Planner.Options(explanations: .none)).get()
        let tree = Rendering(model: model, placement: Placement(plan)).tree
        let cluster = try #require(tree.files.first { $0.path.hasPrefix("clusters/") }?.path.split(separator: "/").dropFirst().first)
        var objects: [JSONValue] = []
        for file in tree.files where file.path.hasPrefix("clusters/\(cluster)/") && !file.path.hasSuffix("kustomization.yaml") {
            objects += try ManifestDocuments.objects(Array(file.contents.utf8), file: file.path)
        }
        #expect(objects.count > 10)
        // Namespaces first, as the engine orders them.
        let ordered = objects.filter { $0["kind"]?.stringValue == "Namespace" } + objects.filter { $0["kind"]?.stringValue != "Namespace" }
        let client = try TestBed.load().client("admin-cert")
        var first: [ObjectReference: JSONValue] = [:]
        for object in ordered {
            let reference = try #require(ObjectReference(object: object))
            first[reference] = try await client.apply(object)
        }
        for object in ordered {
            let reference = try #require(ObjectReference(object: object))
            let again = try await client.apply(object)
            if object["kind"]?.stringValue == "EndpointSlice" {
                // kube-apiserver 1.20 writes an EndpointSlice on every apply, addresses or none (a new resourceVersion
                // and managedFields time each time), so for slices "changes nothing" is held on the content.
                #expect(Self.content(again) == first[reference].map(Self.content), "\(reference) changed on a second apply")
            } else {
                #expect(
                    again.value(at: ["metadata", "resourceVersion"])?.stringValue == first[reference]?.value(at: ["metadata", "resourceVersion"])?.stringValue,
                    "\(reference) changed on a second apply"
                )
            }
        }
    }

    /// What an object says, without what the server stamps on each write.
    static func content(_ object: JSONValue) -> JSONValue {
        guard case .object(let fields) = object else { return object }
        return .object(fields.map { key, value in
            guard key == "metadata", case .object(let metadata) = value else { return (key, value) }
            return (key, .object(metadata.filter { $0.0 != "resourceVersion" && $0.0 != "managedFields" }))
        })
    }
}
