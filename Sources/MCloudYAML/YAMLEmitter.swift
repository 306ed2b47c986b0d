/// Writes nodes as block-style YAML, byte-identical for identical input.
///
/// Mappings keep the order they were built in; strings are written plain where no YAML 1.1 or 1.2
/// reader could take them for another type, as literal blocks when they span lines, and double-quoted otherwise.
public enum YAMLEmitter {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func emit(_ documents: [YAMLNode]) throws(Failure) -> String {
        guard let emitter = LibYAMLEmitter() else { throw Failure(description: "cannot start the YAML emitter") }
        do throws(LibYAMLEmitter.Failure) {
            try emitter.emit(.streamStart)
            for (index, document) in documents.enumerated() {
                try emitter.emit(.documentStart(explicit: index > 0))
                try emitNode(document, into: emitter)
                try emitter.emit(.documentEnd)
            }
            try emitter.emit(.streamEnd)
        } catch {
            throw Failure(description: error.message)
        }
        return emitter.text
    }

    public static func emit(_ document: YAMLNode) throws(Failure) -> String {
        try emit([document])
    }

    private static func emitNode(_ node: YAMLNode, into emitter: LibYAMLEmitter) throws(LibYAMLEmitter.Failure) {
        switch node.content {
        case .scalar(let scalar):
            try emitter.emit(.scalar(scalar.value, style(for: scalar)))
        case .sequence(let items):
            try emitter.emit(.sequenceStart)
            for item in items { try emitNode(item, into: emitter) }
            try emitter.emit(.sequenceEnd)
        case .mapping(let pairs):
            try emitter.emit(.mappingStart)
            for pair in pairs {
                try emitNode(pair.key, into: emitter)
                try emitNode(pair.value, into: emitter)
            }
            try emitter.emit(.mappingEnd)
        }
    }

    /// Plain scalars are written as they are: they are numbers, booleans and nulls, or strings the reader kept plain.
    static func style(for scalar: YAMLScalar) -> ScalarStyle {
        guard case .string(let value) = scalar.resolved, !(scalar.style == .plain && scalar.tag == nil) else {
            return .plain
        }
        if value.contains("\n"), !value.hasPrefix(" "), !value.contains(where: isControl) { return .literal }
        return isSafePlain(value) ? .plain : .doubleQuoted
    }

    /// Words that YAML 1.1 readers (kubectl's among them) turn into booleans or null.
    private static let yaml11Words: Set<String> = ["y", "yes", "n", "no", "on", "off", "true", "false", "null", "~", "=", "<<"]
    private static let indicators: Set<Character> = ["-", "?", ":", ",", "[", "]", "{", "}", "#", "&", "*", "!", "|", ">", "'", "\"", "%", "@", "`"]

    static func isSafePlain(_ value: String) -> Bool {
        guard let first = value.first, let last = value.last else { return false }
        if indicators.contains(first) || first == " " || last == " " || last == ":" { return false }
        if yaml11Words.contains(value.lowercased()) { return false }
        if first.isNumber || first == "." || first == "+" { return false }
        if value.contains(": ") || value.contains(" #") || value.contains(where: isControl) { return false }
        return YAMLScalar(value).resolved == .string(value)
    }

    private static func isControl(_ character: Character) -> Bool {
        character.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F }
    }
}
