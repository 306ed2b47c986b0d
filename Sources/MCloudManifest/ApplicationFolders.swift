import Foundation
import MCloudYAML

/// A folder holding several applications, each in a folder of its own (as `Manifests/` holds the examples), split
/// into each application's files: a file belongs to the application whose folder is the nearest one above it. So
/// `mcloud validate` checks each on its own, where a plan, which places exactly one, refuses the lot.
public enum ApplicationFolders {
    public struct Application: Sendable, Hashable {
        /// The folder of the file that holds the Application document.
        public var folder: String
        public var files: [String]
    }

    /// Each application's folder and files, by folder; nil when the files hold at most one Application, or cannot be
    /// split by folder (two Applications in one folder, or a file outside every application's folder): then they are
    /// one input, as a plan reads them.
    public static func split(paths: [String]) -> [Application]? {
        let files = paths.flatMap { ManifestFiles.find($0).files }
        var folders: [String] = []
        for file in files where holdsAnApplication(file) {
            let folder = (file as NSString).deletingLastPathComponent
            guard !folders.contains(folder) else { return nil }
            folders.append(folder)
        }
        guard folders.count > 1 else { return nil }
        var grouped: [String: [String]] = [:]
        for file in files {
            // The nearest application folder above the file: the longest that is a prefix of its path.
            let owner = folders.filter { file.hasPrefix($0 + "/") }.max { $0.count < $1.count }
            guard let owner else { return nil }
            grouped[owner, default: []].append(file)
        }
        return folders.sorted().map { Application(folder: $0, files: grouped[$0] ?? []) }
    }

    private static func holdsAnApplication(_ file: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: file) else { return false }
        return YAMLReader.read(Array(data), file: file).documents.contains { $0.root?["kind"]?.scalar?.value == "Application" }
    }
}
