import MCloudCore

/// A small XML tree for AWS answers: elements, attributes and text, with the five named entities and numeric
/// references. Namespaces are kept in names as written (`xmlns` is an attribute); DTDs are not supported.
public struct XMLNode: Sendable, Hashable {
    public var name: String
    public var attributes: [String: String]
    public var children: [XMLNode]
    /// The element's own text, concatenated, untrimmed.
    public var text: String

    public init(name: String, attributes: [String: String] = [:], children: [XMLNode] = [], text: String = "") {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    /// The first child called `name` (the local part, so `s3:Code` matches `Code`).
    public func child(_ name: String) -> XMLNode? { children.first { $0.localName == name } }

    public func children(_ name: String) -> [XMLNode] { children.filter { $0.localName == name } }

    /// The trimmed text at a path of child names, such as `["Error", "Code"]`.
    public func value(_ path: String...) -> String? {
        var node = self
        for name in path {
            guard let next = node.child(name) else { return nil }
            node = next
        }
        return node.text.trimmed
    }

    /// The first element called `name` at any depth, this one included.
    public func find(_ name: String) -> XMLNode? {
        if localName == name { return self }
        for child in children {
            if let found = child.find(name) { return found }
        }
        return nil
    }

    public var localName: Substring { name.split(separator: ":").last ?? Substring(name) }

    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var offset: Int
        public var message: String
        /// Set when the document broke one of the `Limits` rather than the syntax.
        public var limit: Limits.Kind?
        public var description: String { "invalid XML at byte \(offset): \(message)" }
    }

    /// How much of a document the parser takes before it gives up: a hostile or broken server can nest elements
    /// until the recursion overflows the stack, or send millions of tiny ones that each cost a node.
    public struct Limits: Sendable, Hashable {
        public enum Kind: Sendable, Hashable { case depth, elements, bytes }

        public var maxDepth: Int
        public var maxElements: Int
        public var maxBytes: Int

        public init(maxDepth: Int = 64, maxElements: Int = 500_000, maxBytes: Int = 64 << 20) {
            self.maxDepth = maxDepth
            self.maxElements = maxElements
            self.maxBytes = maxBytes
        }
    }

    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(ParseError) -> XMLNode {
        guard bytes.count <= limits.maxBytes else {
            throw ParseError(offset: 0, message: "the document has \(bytes.count) bytes, more than the \(limits.maxBytes) an answer may have", limit: .bytes)
        }
        var parser = XMLParserState(bytes: bytes, limits: limits)
        return try parser.document()
    }

    /// The element back as XML: attributes sorted, then its text, then its children (AWS documents have no
    /// mixed content, so nothing is reordered that matters).
    public func serialized() -> String {
        let attributes = self.attributes.sorted { $0.key < $1.key }.map { " \($0.key)=\"\(Self.escape($0.value))\"" }.joined()
        let inner = (children.isEmpty ? Self.escape(text) : "") + children.map { $0.serialized() }.joined()
        return "<\(name)\(attributes)>\(inner)</\(name)>"
    }

    /// `<name>escaped text</name>`, for building request bodies.
    public static func element(_ name: String, _ text: String) -> String { "<\(name)>\(escape(text))</\(name)>" }

    public static func escape(_ text: String) -> String { Markup.escape(text) }
}

extension StringProtocol {
    var trimmed: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}

private struct XMLParserState {
    let bytes: [UInt8]
    let limits: XMLNode.Limits
    var index = 0
    var depth = 0
    var elements = 0

    init(bytes: [UInt8], limits: XMLNode.Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func document() throws(XMLNode.ParseError) -> XMLNode {
        while true {
            skipSpace()
            if starts("<?") { try skip(past: "?>") } else if starts("<!--") { try skip(past: "-->") } else if starts("<!") { try skip(past: ">") } else { break }
        }
        guard starts("<") else { throw fail("expected the root element") }
        return try element()
    }

    mutating func element() throws(XMLNode.ParseError) -> XMLNode {
        depth += 1
        defer { depth -= 1 }
        elements += 1
        guard depth <= limits.maxDepth else { throw fail("elements nested deeper than \(limits.maxDepth) levels", limit: .depth) }
        guard elements <= limits.maxElements else { throw fail("more than \(limits.maxElements) elements", limit: .elements) }
        index += 1
        var node = XMLNode(name: name())
        while true {
            skipSpace()
            if starts("/>") { index += 2; return node }
            if starts(">") { index += 1; break }
            let attribute = name()
            guard !attribute.isEmpty else { throw fail("bad attribute in <\(node.name)>") }
            skipSpace()
            guard starts("=") else { throw fail("expected = after \(attribute)") }
            index += 1
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else { throw fail("expected a quoted value") }
            let quote = bytes[index]
            index += 1
            let start = index
            while index < bytes.count, bytes[index] != quote { index += 1 }
            guard index < bytes.count else { throw fail("unterminated attribute value") }
            node.attributes[attribute] = decodeEntities(bytes[start..<index])
            index += 1
        }
        var text: [UInt8] = []
        while index < bytes.count {
            if starts("</") {
                index += 2
                let closing = name()
                guard closing == node.name else { throw fail("</\(closing)> closes <\(node.name)>") }
                skipSpace()
                guard starts(">") else { throw fail("expected > after </\(closing)") }
                index += 1
                node.text += decodeEntities(text[...])
                return node
            } else if starts("<![CDATA[") {
                index += 9
                let start = index
                try skip(past: "]]>")
                node.text += decodeEntities(text[...])
                text = []
                node.text += String(decoding: bytes[start..<(index - 3)], as: UTF8.self)
            } else if starts("<!--") {
                try skip(past: "-->")
            } else if starts("<") {
                node.children.append(try element())
            } else {
                text.append(bytes[index])
                index += 1
            }
        }
        throw fail("<\(node.name)> is not closed")
    }

    func starts(_ literal: String) -> Bool {
        let pattern = Array(literal.utf8)
        return index + pattern.count <= bytes.count && Array(bytes[index..<(index + pattern.count)]) == pattern
    }

    mutating func skip(past literal: String) throws(XMLNode.ParseError) {
        while index < bytes.count, !starts(literal) { index += 1 }
        guard index < bytes.count else { throw fail("missing \(literal)") }
        index += literal.utf8.count
    }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x0A, 0x09, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func name() -> String {
        let start = index
        while index < bytes.count, ![0x20, 0x0A, 0x09, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: "=")].contains(bytes[index]) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    func fail(_ message: String, limit: XMLNode.Limits.Kind? = nil) -> XMLNode.ParseError {
        XMLNode.ParseError(offset: index, message: message, limit: limit)
    }

    func decodeEntities(_ raw: ArraySlice<UInt8>) -> String {
        let text = String(decoding: raw, as: UTF8.self)
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let scalar = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16) : entity.hasPrefix("#") ? UInt32(entity.dropFirst(), radix: 10) : nil
                if let scalar, let unicode = Unicode.Scalar(scalar) { out.unicodeScalars.append(unicode) } else { out += rest[amp...semicolon] }
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return out + rest
    }
}
