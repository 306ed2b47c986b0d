public import MCloudCore
import MCloudYAML
import Foundation

/// The result of reading and checking a set of manifests: the model when there is no error, and every diagnostic.
public struct ManifestSet: Sendable {
    public var model: Model?
    /// Sorted by file and position.
    public var diagnostics: [Diagnostic]
    public var files: [String]
    public var documentCount: Int
}

/// Reads manifests from files and directories, and checks them against the format in docs/manifests.md.
public enum ManifestLoader {
    /// One input file's path and bytes.
    public struct Source: Sendable {
        public var file: String
        public var bytes: [UInt8]

        public init(file: String, bytes: [UInt8]) {
            self.file = file
            self.bytes = bytes
        }
    }

    /// Reads `paths` (files, or directories searched recursively for *.yaml and *.yml in sorted order)
    /// and the cloud catalog in `providers`.
    public static func load(paths: [String], providers: String?, standbyRule: StandbyRule = .mustReplicate) -> ManifestSet {
        let (sources, diagnostics) = read(paths + (providers.map { [$0] } ?? []))
        var result = load(sources, standbyRule: standbyRule)
        result.diagnostics = (diagnostics + result.diagnostics).sorted()
        if diagnostics.hasErrors { result.model = nil }
        return result
    }

    /// The cloud catalog in `providers` alone, for a command that asks the clouds about it and needs no application
    /// (`mcloud catalog offers`): its clouds, or nil when it has errors, and every problem found.
    public static func catalog(providers: String) -> (clouds: [Cloud]?, diagnostics: [Diagnostic]) {
        var (sources, diagnostics) = read([providers])
        let decoder = Decoder()
        var clouds: [Cloud] = []
        for source in sources {
            let read = YAMLReader.read(source.bytes, file: source.file)
            diagnostics += read.diagnostics
            for case .cloud(let cloud) in read.documents.compactMap(\.root).compactMap({ decoder.manifest($0) }) { clouds.append(cloud) }
        }
        diagnostics += decoder.diagnostics
        if !diagnostics.hasErrors, clouds.isEmpty {
            diagnostics.append(Diagnostic(.error, file: nil, "no Cloud manifests found; pass --providers DIR pointing at the cloud catalog"))
        }
        let sorted = Array(Set(diagnostics)).sorted()
        return (sorted.hasErrors ? nil : clouds, sorted)
    }

    /// The manifest files under `paths`, each once, and the problems finding or reading them.
    private static func read(_ paths: [String]) -> (sources: [Source], diagnostics: [Diagnostic]) {
        var diagnostics: [Diagnostic] = []
        var files: [String] = []
        for path in paths {
            let found = ManifestFiles.find(path)
            diagnostics += found.diagnostics
            files += found.files.filter { !files.contains($0) }
        }
        var sources: [Source] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                diagnostics.append(Diagnostic(.error, file: file, "cannot read the file"))
                continue
            }
            sources.append(Source(file: file, bytes: Array(data)))
        }
        return (sources, diagnostics)
    }

    /// Checks manifests that are already in memory.
    public static func load(_ sources: [Source], standbyRule: StandbyRule = .mustReplicate) -> ManifestSet {
        let decoder = Decoder()
        var manifests: [Manifest] = []
        var diagnostics: [Diagnostic] = []
        var documentCount = 0
        var complete = true
        for source in sources {
            let read = YAMLReader.read(source.bytes, file: source.file)
            diagnostics += read.diagnostics
            complete = complete && !read.diagnostics.hasErrors
            let documents = read.documents.compactMap(\.root)
            if documents.isEmpty, !read.diagnostics.hasErrors {
                diagnostics.append(.error(SourceLocation(file: source.file, line: 1, column: 1), "the file holds no manifest"))
            }
            documentCount += documents.count
            manifests += documents.compactMap { decoder.manifest($0) }
        }
        var checker = ModelChecker(
            manifests: manifests, sourceMap: decoder.sourceMap, seen: decoder.documentsSeen, rejectedRates: decoder.rejectedRates,
            complete: complete, decodedCleanly: !decoder.diagnostics.hasErrors, standbyRule: standbyRule
        )
        let model = checker.check()
        diagnostics += decoder.diagnostics + checker.diagnostics
        let sorted = Array(Set(diagnostics)).sorted()
        return ManifestSet(
            model: sorted.hasErrors ? nil : model, diagnostics: sorted, files: sources.map(\.file), documentCount: documentCount
        )
    }
}

/// Finds manifest files under a path.
public enum ManifestFiles {
    public static func find(_ path: String) -> (files: [String], diagnostics: [Diagnostic]) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return ([], [Diagnostic(.error, file: path, "no such file or directory")])
        }
        guard isDirectory.boolValue else { return ([path], []) }
        guard let enumerator = FileManager.default.enumerator(atPath: path) else {
            return ([], [Diagnostic(.error, file: path, "cannot read the directory")])
        }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".yaml") || relative.hasSuffix(".yml") else { continue }
            let full = path.hasSuffix("/") ? path + relative : path + "/" + relative
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue {
                files.append(full)
            }
        }
        guard !files.isEmpty else {
            return ([], [Diagnostic(.error, file: path, "the directory holds no .yaml or .yml file")])
        }
        return (files.sorted(), [])
    }
}
