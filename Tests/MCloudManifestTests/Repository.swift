import Foundation

/// Paths of the repository this test file sits in, found from `#filePath`, so tests read the real example files.
enum Repository {
    /// `<repo>`: this file is `<repo>/Tests/MCloudManifestTests/Repository.swift`.
    static let root: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static let providers = root + "/Providers"
    static let manifests = root + "/Manifests"

    /// The `*.yaml` and `*.yml` files under `directory`, searched recursively, sorted; empty when it cannot be read.
    static func yamlFiles(in directory: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var files: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            if relative.hasSuffix(".yaml") || relative.hasSuffix(".yml") { files.append(directory + "/" + relative) }
        }
        return files.sorted()
    }

    /// The sub-directories of `directory`, sorted by name.
    static func subdirectories(of directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.sorted().filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory) && isDirectory.boolValue
        }
    }
}
