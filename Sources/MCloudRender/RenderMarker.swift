import Foundation
import MCloudCore
import MCloudYAML

/// The file that marks a directory as written by `mcloud render`, and what it was rendered for: the Git repository
/// and branch of its bootstrap objects, which a later render and `render --check` take when not told otherwise.
///
/// Format 1 (before bootstrap/) held only the format; a directory marked so may hold a `bootstrap/` of the team's
/// own, which a render refuses to replace unless forced.
public struct RenderMarker: Sendable, Hashable {
    public static let file = ".mcloud-render"
    public static let currentFormat = 2

    public var format: Int
    /// Nil in a format-1 marker.
    public var source: Bootstrap.Source?

    public init(source: Bootstrap.Source) {
        format = Self.currentFormat
        self.source = source
    }

    init(format: Int, source: Bootstrap.Source?) {
        self.format = format
        self.source = source
    }

    public var contents: String {
        var fields: [(String, ObjectNode)] = [("format", .int(format))]
        if let source {
            fields += [("repository", .string(source.url)), ("branch", .string(source.branch))]
            if let secret = source.fluxSecret { fields.append(("fluxSecret", .string(secret))) }
        }
        return """
            # Written by `mcloud render`. mcloud owns bootstrap/, clusters/ and infrastructure/ here and replaces them
            # whole on every render; edit the manifests and render again instead of editing these files.

            """ + BlockYAMLWriter.document(.map(fields))
    }

    public var treeFile: RenderedTree.File { RenderedTree.File(path: Self.file, contents: contents) }

    /// The marker of `directory`, nil when it has none; a marker mcloud cannot read is an error, since a render
    /// would otherwise replace what it says.
    public static func read(directory: String) throws(TreeWriter.Failure) -> RenderMarker? {
        let path = directory + "/" + file
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TreeWriter.Failure(description: "cannot read \(path)")
        }
        let read = YAMLReader.read(Array(data), file: path)
        let root = read.documents.first?.root
        guard !read.diagnostics.hasErrors, let root, let format = root["format"]?.scalar.flatMap({ Int($0.value) }) else {
            throw TreeWriter.Failure(description: "\(path) is not a marker mcloud render wrote (it has no format: line); remove it or render into another directory")
        }
        guard format <= currentFormat else {
            throw TreeWriter.Failure(description: "\(path) was written by a newer mcloud (format \(format)); upgrade mcloud")
        }
        var source: Bootstrap.Source?
        if let url = root["repository"]?.scalar?.value, let branch = root["branch"]?.scalar?.value {
            source = Bootstrap.Source(url: url, branch: branch, fluxSecret: root["fluxSecret"]?.scalar?.value)
        }
        return RenderMarker(format: format, source: source)
    }
}
