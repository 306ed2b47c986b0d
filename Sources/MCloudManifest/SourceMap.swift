import MCloudCore
import MCloudYAML

/// Where each document's fields were written, for checks that run after decoding and must point at the exact value.
/// It keeps each document's node tree and walks a key path only when a diagnostic needs it.
struct SourceMap {
    private var documents: [String: YAMLNode] = [:]

    mutating func record(document: String, root: YAMLNode) {
        if documents[document] == nil { documents[document] = root }
    }

    /// The place of `path` (such as `spec.dependsOn[0].name`) in `document`, or of the deepest part of it that exists.
    func location(document: String, path: String, fallback: SourceLocation) -> SourceLocation {
        guard var node = documents[document] else { return fallback }
        for step in Self.steps(path) {
            switch step {
            case .key(let key):
                guard let value = node[key] else { return node.location }
                node = value
            case .index(let index):
                guard let items = node.sequence, items.indices.contains(index) else { return node.location }
                node = items[index]
            }
        }
        return node.location
    }

    private enum Step {
        case key(String)
        case index(Int)
    }

    private static func steps(_ path: String) -> [Step] {
        var steps: [Step] = []
        for part in path.split(separator: ".") {
            var rest = Substring(part)
            if let bracket = rest.firstIndex(of: "[") {
                steps.append(.key(String(rest[..<bracket])))
                rest = rest[bracket...]
                while rest.first == "[", let close = rest.firstIndex(of: "]") {
                    if let index = Int(rest[rest.index(after: rest.startIndex)..<close]) { steps.append(.index(index)) }
                    rest = rest[rest.index(after: close)...]
                }
            } else {
                steps.append(.key(String(rest)))
            }
        }
        return steps
    }
}
