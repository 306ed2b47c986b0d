import Foundation
import MCloudCore
import MCloudManifest
import MCloudSynthetic
import MCloudYAML
import Testing

/// Instances of the project's own generator (`MCloudSynthetic`, what `mcloud-bench generate` writes), at the sizes of
/// the shared bench's instances, written to a folder and read back as a user's files are: each must validate, and the
/// model must keep every document the files hold. (Regression: a Service with `availability: { maxShare: 0.5 }` was
/// once dropped without a word, so the planner silently placed fewer services than the files describe.)
@Suite struct GeneratedInstanceTests {
    static let instances: [(size: SyntheticInstance.Size, seed: UInt64)] = [
        (.init(clouds: 8, services: 20, databases: 5), 1), (.init(clouds: 8, services: 20, databases: 5), 2),
        (.init(clouds: 20, services: 100, databases: 20), 1), (.init(clouds: 20, services: 100, databases: 20), 2),
        (.init(clouds: 50, services: 500, databases: 100), 1), (.init(clouds: 50, services: 500, databases: 100), 2),
        (.init(clouds: 100, services: 2_000, databases: 300), 1), (.init(clouds: 100, services: 2_000, databases: 300), 2),
    ]

    @Test(arguments: instances.indices)
    func validatesAndKeepsEveryDocument(_ index: Int) throws {
        let (size, seed) = Self.instances[index]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-generated-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try SyntheticInstance(size: size, seed: seed).write(to: directory)

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
        #expect(kinds["Cloud"] == size.clouds && kinds["Service"] == size.services && kinds["Database"] == size.databases)
        #expect(model.services.count == kinds["Service", default: 0])
        #expect(model.databases.count == kinds["Database", default: 0])
        #expect(model.clouds.count == kinds["Cloud", default: 0])
        #expect(model.cdns.count == kinds["CDN", default: 0])
        #expect(model.cells.count == 4 * (size.services + size.databases))
        #expect(set.documentCount == kinds.values.reduce(0, +))
    }

    @Test func theSameSizeAndSeedGiveTheSameBytes() {
        let size = SyntheticInstance.Size(clouds: 20, services: 100, databases: 20)
        #expect(SyntheticInstance(size: size, seed: 7).files == SyntheticInstance(size: size, seed: 7).files)
        #expect(SyntheticInstance(size: size, seed: 7).files != SyntheticInstance(size: size, seed: 8).files)
    }
}
