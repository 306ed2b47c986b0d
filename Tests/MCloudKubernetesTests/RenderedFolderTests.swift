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
        let plan = try Planner.plan(model, options: Planner.Options(explanations: false)).get()
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
        var versions: [ObjectReference: String] = [:]
        for object in ordered {
            let applied = try await client.apply(object)
            let reference = try #require(ObjectReference(object: object))
            versions[reference] = applied.value(at: ["metadata", "resourceVersion"])?.stringValue
        }
        for object in ordered {
            let reference = try #require(ObjectReference(object: object))
            let again = try await client.apply(object)
            #expect(again.value(at: ["metadata", "resourceVersion"])?.stringValue == versions[reference], "\(reference) changed on a second apply")
        }
    }
}
