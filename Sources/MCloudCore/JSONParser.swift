import Dispatch
import Synchronization

/// Parses JSON (RFC 8259) into a `JSONValue`, keeping object keys in document order. Written out rather than
/// taken from Foundation, whose number and boolean bridging differs between platforms.
///
/// It works on the bytes: a string becomes a `String` once, from its bytes (through a scratch buffer only when it
/// holds an escape), and a number is read from its digits, falling back to the standard library's reading only for
/// a number of more digits than a `Double` holds exactly. What it accepts and the errors it gives (offset and
/// message) are those of the `String`-based parser it replaced, with two bugs fixed: a `\u` escape takes exactly
/// four hex digits (not `+041`), and a high surrogate escape followed by an escape that is not a low surrogate is
/// U+FFFD followed by what that escape is on its own (it crashed). Invalid UTF-8 inside a string becomes U+FFFD, as
/// `String(decoding:as:)` repairs it; a state or plan that mcloud wrote never holds any.
///
/// A large document (a state of 10,000 resources is 20 MiB) is read on two cores: another core reads the items of
/// the array that holds its middle (a state's resources, a plan's changes) from a comma after the middle on, while
/// this one reads in order up to that comma and takes them over there. The comma is only a guess; the reading in
/// order takes the items read ahead only when it meets that very comma between two items of an array one level deep,
/// and they read without error, so what is accepted and every error stay exactly those of the one-core reading.
public struct JSONParser {
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        public var offset: Int
        public var message: String
        public var description: String { "invalid JSON at byte \(offset): \(message)" }
    }

    /// The document's bytes, borrowed for the parse: reading them through the buffer rather than the array spares
    /// the bounds check and the array's reference on every byte.
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index: Int
    private var depth: Int
    /// Reused by every string with an escape, so decoding one costs no allocation of its own.
    private var scratch: [UInt8] = []
    /// The items read on another core from a comma on, taken over when the reading in order meets that comma.
    private var ahead: ReadAhead?
    private static let maxDepth = 512

    /// From this size on a document is read on two cores; below it, starting a thread costs more than it saves.
    static let partedSize = 1 << 20

    public static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        guard bytes.count >= partedSize, let cut = guessedCut(bytes) else {
            return try reading(bytes, from: 0, depth: 0) { parser throws(Failure) in try parser.document() }
        }
        let ahead = ReadAhead(bytes, after: cut)
        // Waited for even when not taken, so no reading outlives the parse and competes with what follows it.
        defer { _ = ahead.items() }
        return try reading(bytes, from: 0, depth: 0) { parser throws(Failure) in
            parser.ahead = ahead
            return try parser.document()
        }
    }

    public static func parse(_ text: String) throws(Failure) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// The one place that borrows the array's storage: `body` reads it from `index`, `depth` levels deep.
    private static func reading<Result>(
        _ bytes: [UInt8], from index: Int, depth: Int, _ body: (inout JSONParser) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) -> Result in
            var parser = JSONParser(bytes: buffer, index: index, depth: depth)
            return try body(&parser)
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, index: Int, depth: Int) {
        self.bytes = bytes
        self.index = index
        self.depth = depth
    }

    private mutating func document() throws(Failure) -> JSONValue {
        skipSpace()
        let value = try value()
        skipSpace()
        guard index == bytes.count else { throw failure("unexpected data after the document") }
        return value
    }

    /// Items of an array read from just after the comma at `cut` to the array's end, with the offset just after its
    /// `]`; nil when they do not read (the reading in order then finds the error itself, or never meets the comma).
    private final class ReadAhead: Sendable {
        struct Items: Sendable {
            var values: [JSONValue]
            var end: Int
        }

        let cut: Int
        private let finished = DispatchGroup()
        private let read = Mutex<Items?>(nil)

        /// Starts the reading on a queue of its own, whose thread is never one the reading in order is waiting on.
        init(_ bytes: [UInt8], after cut: Int) {
            self.cut = cut
            finished.enter()
            DispatchQueue(label: "mcloud.json.read-ahead").async { [self] in
                // One level deep in the document and in the array, as the reading in order is between its items.
                let items = try? JSONParser.reading(bytes, from: cut + 1, depth: 2) { parser throws(Failure) in
                    Items(values: try parser.items(), end: parser.index)
                }
                read.withLock { $0 = items }
                finished.leave()
            }
        }

        /// The items, once read.
        func items() -> Items? {
            finished.wait()
            return read.withLock { $0 }
        }
    }

    /// A comma after the document's middle that ends a line whose next starts four spaces in: between two items of
    /// an array one level deep as `JSONValue.serializedBytes` lays documents out (a raw line break is never inside
    /// a string). Else `},{` after the middle: between two objects of some array, as a compact document has them.
    /// Only a guess, checked by the reading in order (see `items()`); nil when neither is found soon.
    private static func guessedCut(_ bytes: [UInt8]) -> Int? {
        let middle = bytes.count / 2, end = min(bytes.count - 7, middle + (1 << 20))
        guard middle < end else { return nil }
        let space = UInt8(ascii: " ")
        for index in middle..<end where bytes[index] == UInt8(ascii: ",") && bytes[index + 1] == UInt8(ascii: "\n") {
            if bytes[index + 2] == space, bytes[index + 3] == space, bytes[index + 4] == space, bytes[index + 5] == space, bytes[index + 6] != space {
                return index
            }
        }
        for index in middle..<end where bytes[index] == UInt8(ascii: ",") && bytes[index - 1] == UInt8(ascii: "}") && bytes[index + 1] == UInt8(ascii: "{") {
            return index
        }
        return nil
    }

    private func failure(_ message: String) -> Failure { Failure(offset: index, message: message) }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private static let trueBytes = Array("true".utf8), falseBytes = Array("false".utf8), nullBytes = Array("null".utf8)

    private mutating func expect(_ literal: [UInt8], _ value: JSONValue) throws(Failure) -> JSONValue {
        for byte in literal {
            guard current == byte else { throw failure("expected \(String(decoding: literal, as: UTF8.self))") }
            index += 1
        }
        return value
    }

    private mutating func value() throws(Failure) -> JSONValue {
        guard let byte = current else { throw failure("unexpected end") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try expect(Self.trueBytes, .bool(true))
        case UInt8(ascii: "f"): return try expect(Self.falseBytes, .bool(false))
        case UInt8(ascii: "n"): return try expect(Self.nullBytes, .null)
        default: return try number()
        }
    }

    private mutating func nest() throws(Failure) {
        depth += 1
        if depth > Self.maxDepth { throw failure("nested deeper than \(Self.maxDepth)") }
    }

    private mutating func object() throws(Failure) -> JSONValue {
        try nest()
        index += 1
        var pairs: [(String, JSONValue)] = []
        skipSpace()
        if current == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(pairs)
        }
        while true {
            skipSpace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try string()
            skipSpace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipSpace()
            pairs.append((key, try value()))
            skipSpace()
            if current == UInt8(ascii: ",") { index += 1; continue }
            guard current == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
            index += 1
            depth -= 1
            return .object(pairs)
        }
    }

    private mutating func array() throws(Failure) -> JSONValue {
        try nest()
        index += 1
        skipSpace()
        if current == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array([])
        }
        let items = try items()
        depth -= 1
        return .array(items)
    }

    /// An array's items up to its `]`, which is passed. Where the comma the other core read ahead from is met
    /// between two items of an array one level deep, where that core read as being, its items are taken over:
    /// from there on they are what reading on would give.
    private mutating func items() throws(Failure) -> [JSONValue] {
        var items: [JSONValue] = []
        while true {
            skipSpace()
            items.append(try value())
            skipSpace()
            if current == UInt8(ascii: ",") {
                if let ahead, index == ahead.cut, depth == 2 {
                    self.ahead = nil
                    if let rest = ahead.items() {
                        items.append(contentsOf: rest.values)
                        index = rest.end
                        return items
                    }
                }
                index += 1
                continue
            }
            guard current == UInt8(ascii: "]") else { throw failure("expected ',' or ']'") }
            index += 1
            return items
        }
    }

    /// The string starting at the opening quote. Without an escape, one `String` straight from the bytes between
    /// the quotes; with one, the runs and the escapes' UTF-8 gathered in `scratch` first.
    private mutating func string() throws(Failure) -> String {
        index += 1
        var run = index
        var escaped = false
        while true {
            guard index < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text: String
                if escaped {
                    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                    text = String(decoding: scratch, as: UTF8.self)
                } else {
                    text = String(decoding: UnsafeBufferPointer(rebasing: bytes[run..<index]), as: UTF8.self)
                }
                index += 1
                return text
            }
            guard byte >= 0x20 else { throw failure("control character in a string") }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            if !escaped {
                scratch.removeAll(keepingCapacity: true)
                escaped = true
            }
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
            index += 1
            guard let escape = current else { throw failure("unterminated escape") }
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escape)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"): try unicodeEscape()
            default: throw failure("bad escape")
            }
            run = index
        }
    }

    /// After `\u`: four hex digits, and a low surrogate's escape after a high surrogate's. A surrogate without its
    /// other half is U+FFFD; an escape after a high surrogate that is not a low one is read again on its own.
    private mutating func unicodeEscape() throws(Failure) {
        var code = try hex4()
        if (0xD800...0xDBFF).contains(code), current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") {
            index += 2
            let low = try hex4()
            if (0xDC00...0xDFFF).contains(low) {
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else {
                index -= 6
            }
        }
        appendUTF8(Unicode.Scalar(code).map(\.value) ?? 0xFFFD)
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case ..<0x80:
            scratch.append(UInt8(scalar))
        case ..<0x800:
            scratch.append(0xC0 | UInt8(scalar >> 6))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        case ..<0x10000:
            scratch.append(0xE0 | UInt8(scalar >> 12))
            scratch.append(0x80 | UInt8((scalar >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        default:
            scratch.append(0xF0 | UInt8(scalar >> 18))
            scratch.append(0x80 | UInt8((scalar >> 12) & 0x3F))
            scratch.append(0x80 | UInt8((scalar >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("bad \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("bad \\u escape")
            }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    /// A number: the bytes that may belong to one (digits, `.`, `e`, `E`, `+`, `-`), read as an `Int` when they
    /// hold no `.` or exponent and fit, else as a `Double`. JSON's own forms are read here from their digits; any
    /// other run of those bytes (`01`, `+1`, `.5`, more digits than a `Double` holds) goes to the standard library,
    /// as it always did, so what is accepted stays the same.
    private mutating func number() throws(Failure) -> JSONValue {
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-"):
                index += 1
            default:
                return try number(start..<index)
            }
        }
        return try number(start..<index)
    }

    private func number(_ range: Range<Int>) throws(Failure) -> JSONValue {
        if let value = Self.exactNumber(bytes, range) { return value }
        let text = String(decoding: bytes[range], as: UTF8.self)
        let isInteger = !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        if isInteger, let int = Int(text) { return .int(int) }
        guard !text.isEmpty, let double = Double(text) else { throw failure("expected a value") }
        return .number(double)
    }

    /// A number in JSON's grammar (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`) that its digits give exactly:
    /// an integer of at most 18 digits, or at most 15 significant digits scaled by at most 10^22, which a `Double`
    /// holds exactly, so one multiplication or division rounds as the standard library's reading does. Nil for
    /// anything else.
    static func exactNumber(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> JSONValue? {
        var position = range.lowerBound
        let end = range.upperBound
        func isDigit(_ at: Int) -> Bool { at < end && bytes[at] >= UInt8(ascii: "0") && bytes[at] <= UInt8(ascii: "9") }
        let negative = position < end && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        guard isDigit(position) else { return nil }
        if bytes[position] == UInt8(ascii: "0"), isDigit(position + 1) { return nil }
        var mantissa: UInt64 = 0
        var digits = 0
        while isDigit(position) {
            mantissa = mantissa &* 10 &+ UInt64(bytes[position] - UInt8(ascii: "0"))
            digits += 1
            position += 1
        }
        if position == end {
            guard digits <= 18 else { return nil }
            return .int(negative ? -Int(mantissa) : Int(mantissa))
        }
        var exponent = 0
        if bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard isDigit(position) else { return nil }
            while isDigit(position) {
                mantissa = mantissa &* 10 &+ UInt64(bytes[position] - UInt8(ascii: "0"))
                digits += 1
                exponent -= 1
                position += 1
            }
        }
        if position < end, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            var exponentNegative = false
            if position < end, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                exponentNegative = bytes[position] == UInt8(ascii: "-")
                position += 1
            }
            guard isDigit(position) else { return nil }
            var written = 0
            var exponentDigits = 0
            while isDigit(position) {
                written = written * 10 + Int(bytes[position] - UInt8(ascii: "0"))
                exponentDigits += 1
                guard exponentDigits <= 4 else { return nil }
                position += 1
            }
            exponent += exponentNegative ? -written : written
        }
        guard position == end, digits <= 15, (-22...22).contains(exponent) else { return nil }
        var value = Double(mantissa)
        if exponent < 0 {
            value /= powersOfTen[-exponent]
        } else {
            value *= powersOfTen[exponent]
        }
        return .number(negative ? -value : value)
    }

    /// 10^0 to 10^22, each exactly a `Double`.
    private static let powersOfTen: [Double] = (0...22).map { power in (0..<power).reduce(1.0) { value, _ in value * 10 } }
}

extension JSONValue {
    /// The value at a path of object keys, such as `["metadata", "resourceVersion"]`.
    public func value(at path: [String]) -> JSONValue? {
        path.reduce(Optional(self)) { $0?[$1] }
    }
}
