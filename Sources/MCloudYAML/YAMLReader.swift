public import MCloudCore

/// One `---`-separated document; `root` is nil for an empty document.
public struct YAMLDocument: Sendable, Hashable {
    public var root: YAMLNode?
    public var location: SourceLocation

    public init(root: YAMLNode?, location: SourceLocation) {
        self.root = root
        self.location = location
    }
}

/// What a file held: every document read before any fatal problem, and every problem found.
public struct YAMLReadResult: Sendable {
    public var documents: [YAMLDocument]
    public var diagnostics: [Diagnostic]
}

/// Hard limits that keep hostile input from eating memory or the stack.
public struct YAMLLimits: Sendable {
    /// Nodes a document may hold once every alias is expanded; "billion laughs" stops here.
    public var maxExpandedNodes: Int
    /// Nesting depth of collections.
    public var maxDepth: Int

    public init(maxExpandedNodes: Int = 100_000, maxDepth: Int = 200) {
        self.maxExpandedNodes = maxExpandedNodes
        self.maxDepth = maxDepth
    }

    public static let standard = YAMLLimits()
}

/// Reads YAML with libyaml into position-carrying nodes.
public enum YAMLReader {
    public static func read(_ bytes: some Collection<UInt8>, file: String, limits: YAMLLimits = .standard) -> YAMLReadResult {
        let bytes = Array(bytes)
        guard let parser = LibYAMLParser(bytes: bytes) else {
            return YAMLReadResult(documents: [], diagnostics: [Diagnostic(.error, file: file, "cannot start the YAML parser")])
        }
        let builder = DocumentBuilder(parser: parser, bytes: bytes, file: file, limits: limits)
        return builder.readAll()
    }

    public static func read(_ text: String, file: String, limits: YAMLLimits = .standard) -> YAMLReadResult {
        read(Array(text.utf8), file: file, limits: limits)
    }
}

/// Builds nodes from parser events, one document at a time, checking the limits as it goes.
private final class DocumentBuilder {
    private struct Failure: Error {
        var location: SourceLocation
        var message: String
    }

    private struct Built {
        var node: YAMLNode
        var weight: Int
    }

    private let parser: LibYAMLParser
    private let bytes: [UInt8]
    private let file: String
    private let limits: YAMLLimits
    private var anchors: [String: Built] = [:]
    private var documentWeight = 0
    private var diagnostics: [Diagnostic] = []

    init(parser: LibYAMLParser, bytes: [UInt8], file: String, limits: YAMLLimits) {
        self.parser = parser
        self.bytes = bytes
        self.file = file
        self.limits = limits
    }

    func readAll() -> YAMLReadResult {
        var documents: [YAMLDocument] = []
        do throws(Failure) {
            while true {
                switch try next() {
                case .streamEnd:
                    return YAMLReadResult(documents: documents, diagnostics: diagnostics)
                case .documentStart(let mark):
                    anchors = [:]
                    documentWeight = 0
                    let root = try build(try next(), depth: 0)
                    guard case .documentEnd = try next() else {
                        throw Failure(location: location(mark), message: "document does not end where expected")
                    }
                    documents.append(YAMLDocument(root: isEmpty(root.node) ? nil : root.node, location: location(mark)))
                default:
                    continue
                }
            }
        } catch {
            diagnostics.append(.error(error.location, error.message))
            return YAMLReadResult(documents: documents, diagnostics: diagnostics)
        }
    }

    private func isEmpty(_ node: YAMLNode) -> Bool {
        guard let scalar = node.scalar else { return false }
        return scalar.style == .plain && scalar.value.isEmpty && scalar.tag == nil
    }

    private func next() throws(Failure) -> ParserEvent {
        do throws(LibYAMLFailure) {
            return try parser.next()
        } catch {
            throw describe(error)
        }
    }

    private func build(_ event: ParserEvent, depth: Int) throws(Failure) -> Built {
        switch event {
        case .scalar(let anchor, let tag, let value, let style, let mark):
            let built = Built(node: YAMLNode(.scalar(YAMLScalar(value, style: style, tag: tag)), at: location(mark)), weight: 1)
            return try register(built, anchor: anchor)
        case .alias(let anchor, let mark):
            guard let target = anchors[anchor] else {
                throw Failure(location: location(mark), message: "alias *\(anchor) refers to no anchor &\(anchor) defined before it")
            }
            try count(target.weight, at: mark)
            return target
        case .sequenceStart(let anchor, _, let mark):
            try checkDepth(depth, at: mark)
            try count(1, at: mark)
            var items: [YAMLNode] = []
            var weight = 1
            while true {
                let event = try next()
                if case .sequenceEnd = event { break }
                let item = try build(event, depth: depth + 1)
                items.append(item.node)
                weight += item.weight
            }
            return try register(Built(node: YAMLNode(.sequence(items), at: location(mark)), weight: weight), anchor: anchor)
        case .mappingStart(let anchor, _, let mark):
            try checkDepth(depth, at: mark)
            try count(1, at: mark)
            var pairs: [YAMLPair] = []
            var firstKey: [ResolvedScalar: SourceLocation] = [:]
            var weight = 1
            while true {
                let event = try next()
                if case .mappingEnd = event { break }
                let key = try build(event, depth: depth + 1)
                let value = try build(try next(), depth: depth + 1)
                if let scalar = key.node.scalar {
                    let resolved = scalar.resolved
                    if let first = firstKey[resolved] {
                        diagnostics.append(.error(
                            key.node.location,
                            "duplicate key \"\(scalar.value)\"; it was first defined at \(first)"
                        ))
                    } else {
                        firstKey[resolved] = key.node.location
                    }
                }
                pairs.append(YAMLPair(key: key.node, value: value.node))
                weight += key.weight + value.weight
            }
            return try register(Built(node: YAMLNode(.mapping(pairs), at: location(mark)), weight: weight), anchor: anchor)
        case .streamStart, .streamEnd, .documentStart, .documentEnd, .sequenceEnd, .mappingEnd:
            throw Failure(location: SourceLocation(file: file, line: 1, column: 1), message: "unexpected YAML structure")
        }
    }

    private func register(_ built: Built, anchor: String?) throws(Failure) -> Built {
        if built.node.scalar != nil {
            try count(1, at: built.node.location)
        }
        if let anchor { anchors[anchor] = built }
        return built
    }

    private func count(_ weight: Int, at mark: ParserEvent.Mark) throws(Failure) {
        try count(weight, at: location(mark))
    }

    private func count(_ weight: Int, at location: SourceLocation) throws(Failure) {
        documentWeight += weight
        if documentWeight > limits.maxExpandedNodes {
            throw Failure(
                location: location,
                message: "document expands to more than \(limits.maxExpandedNodes) nodes through aliases; refusing it (an alias bomb?)"
            )
        }
    }

    private func checkDepth(_ depth: Int, at mark: ParserEvent.Mark) throws(Failure) {
        if depth >= limits.maxDepth {
            throw Failure(location: location(mark), message: "collections nest deeper than \(limits.maxDepth) levels")
        }
    }

    private func location(_ mark: ParserEvent.Mark) -> SourceLocation {
        SourceLocation(file: file, line: mark.line + 1, column: mark.column + 1)
    }

    private func describe(_ failure: LibYAMLFailure) -> Failure {
        if let offset = failure.byteOffset {
            return Failure(location: location(ofByte: offset), message: "\(failure.problem): the file is not UTF-8 YAML text")
        }
        let mark = failure.mark ?? ParserEvent.Mark(index: 0, line: 0, column: 0)
        var message = failure.problem
        if let context = failure.context { message += " (\(context))" }
        let offset = byteOffset(line: mark.line, column: mark.column).flatMap { $0 < bytes.count ? $0 : nil }
        if let offset, bytes[offset] == UInt8(ascii: "\t") {
            message += "; YAML does not allow tabs for indentation, use spaces"
        } else if let offset, bytes[offset] == UInt8(ascii: "@") || bytes[offset] == UInt8(ascii: "`") {
            let word = bytes[offset...].prefix { !" \t\r\n,]}#".utf8.contains($0) }
            message += "; YAML reserves \(String(decoding: [bytes[offset]], as: UTF8.self)) at the start of a value, so quote it: \"\(String(decoding: word, as: UTF8.self))\""
        } else if failure.problem == "mapping values are not allowed in this context" {
            message += "; a key is indented deeper than the keys beside it, or a value holding \": \" needs quotes"
        } else if failure.problem == "did not find expected key" {
            message += "; the keys of one mapping must start in the same column"
        }
        return Failure(location: location(mark), message: message)
    }

    /// The byte at a 0-based line and column in characters (libyaml's mark), skipping a byte order mark.
    private func byteOffset(line: Int, column: Int) -> Int? {
        var offset = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var currentLine = 0
        while currentLine < line {
            guard let newline = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            offset = newline + 1
            currentLine += 1
        }
        var characters = 0
        while characters < column, offset < bytes.count {
            offset += 1
            while offset < bytes.count, bytes[offset] & 0xC0 == 0x80 { offset += 1 }
            characters += 1
        }
        return offset
    }

    /// Line and column (in characters) of a byte offset, for reader errors that carry no mark.
    private func location(ofByte offset: Int) -> SourceLocation {
        var line = 1
        var column = 1
        for byte in bytes.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return SourceLocation(file: file, line: line, column: column)
    }
}
