import Foundation
import MCloudCore

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

    /// YAML: the format, then each value as a double-quoted string (written as JSON writes it, which YAML reads).
    public var contents: String {
        var lines = ["format: \(format)"]
        if let source {
            lines += ["repository: " + JSONValue.string(source.url).serialized(), "branch: " + JSONValue.string(source.branch).serialized()]
            if let secret = source.fluxSecret { lines.append("fluxSecret: " + JSONValue.string(secret).serialized()) }
        }
        return """
            # Written by `mcloud render`. mcloud owns bootstrap/, clusters/ and infrastructure/ here and replaces them
            # whole on every render; edit the manifests and render again instead of editing these files.

            """ + lines.joined(separator: "\n") + "\n"
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
        var values: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let text = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let value = text.hasPrefix("\"") ? (try? JSONParser.parse(Array(text.utf8)))?.stringValue : text
            values[String(line[..<colon])] = value
        }
        guard let format = values["format"].flatMap({ Int($0) }) else {
            throw TreeWriter.Failure(description: "\(path) is not a marker mcloud render wrote (it has no format: line); remove it or render into another directory")
        }
        guard format <= currentFormat else {
            throw TreeWriter.Failure(description: "\(path) was written by a newer mcloud (format \(format)); upgrade mcloud")
        }
        var source: Bootstrap.Source?
        if let url = values["repository"], let branch = values["branch"] {
            source = Bootstrap.Source(url: url, branch: branch, fluxSecret: values["fluxSecret"])
        }
        return RenderMarker(format: format, source: source)
    }
}
