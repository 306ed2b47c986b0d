import Foundation
import MCloudManifest
import MCloudYAML
import Testing
import MCloudCore

/// The placement benchmark instances in `<repo>/../shared/bench/instances`: each must validate, and the model must
/// keep every document the files hold. (Regression: a Service with `availability: { maxShare: 0.5 }` was once
/// dropped without a word, so the planner silently placed fewer services than the files describe.)
/// CI lays `shared/` next to the clone, so a missing folder fails `instancesAreFound` rather than passing quietly.
@Suite struct BenchInstanceTests {
    static let instances = Repository.subdirectories(of: Repository.benchInstances)

    @Test func instancesAreFound() {
        #expect(Self.instances.count >= 8, "no benchmark instances under \(Repository.benchInstances)")
    }

    @Test(arguments: instances)
    func validatesAndKeepsEveryDocument(_ instance: String) throws {
        let directory = Repository.benchInstances + "/" + instance
        let set = ManifestLoader.load(paths: [directory + "/Manifests"], providers: directory + "/Providers")
        let errors = set.diagnostics.filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors.prefix(10).map(\.description))")
        let model = try #require(set.model)

        var kinds: [String: Int] = [:]
        for file in Repository.yamlFiles(in: directory + "/Manifests") + Repository.yamlFiles(in: directory + "/Providers") {
            let data = try #require(FileManager.default.contents(atPath: file))
            let read = YAMLReader.read(Array(data), file: file)
            #expect(read.diagnostics.isEmpty)
            for document in read.documents {
                if let kind = document.root?["kind"]?.scalar?.value { kinds[kind, default: 0] += 1 }
            }
        }
        #expect(kinds["Application"] == 1)
        #expect(model.services.count == kinds["Service", default: 0])
        #expect(model.databases.count == kinds["Database", default: 0])
        #expect(model.clouds.count == kinds["Cloud", default: 0])
        #expect(model.cdns.count == kinds["CDN", default: 0])
        #expect(set.documentCount == kinds.values.reduce(0, +))
    }
}
