import Foundation
import MCloudCore
import Testing

/// The byte parser against what the `String`-based parser before it did (the tables were recorded from it) and
/// against Foundation's `JSONSerialization` on generated documents.
@Suite struct JSONParserTests {
    @Test(arguments: [
        ("", 0, "unexpected end"), ("   ", 3, "unexpected end"), ("{", 1, "expected a key"), (#"{"a""#, 4, "expected ':'"),
        (#"{"a":"#, 5, "unexpected end"), (#"{"a":1"#, 6, "expected ',' or '}'"), (#"{"a":1,}"#, 7, "expected a key"),
        ("[1,]", 3, "expected a value"), ("[1 2]", 3, "expected ',' or ']'"), ("[,1]", 1, "expected a value"), ("[1,,2]", 3, "expected a value"),
        (#"["a" : 1]"#, 5, "expected ',' or ']'"), ("{1:2}", 1, "expected a key"), (#"{"a" 1}"#, 5, "expected ':'"), ("]", 0, "expected a value"),
        ("tru", 3, "expected true"), ("nul", 3, "expected null"), ("nulL", 3, "expected null"), ("nan", 1, "expected null"),
        ("True", 0, "expected a value"), ("inf", 0, "expected a value"), ("-inf", 1, "expected a value"), ("[true false]", 6, "expected ',' or ']'"),
        ("\"abc", 4, "unterminated string"), ("\"a\\", 3, "unterminated escape"), (#""\x""#, 3, "bad escape"),
        (#""\u12""#, 3, "bad \\u escape"), (#""\u12G4""#, 3, "bad \\u escape"), (#""\uD800\u12""#, 9, "bad \\u escape"),
        ("\"a\nb\"", 2, "control character in a string"), ("\"\u{1F}\"", 1, "control character in a string"),
        ("1 2", 2, "unexpected data after the document"), ("{}x", 2, "unexpected data after the document"),
        ("falsey", 5, "unexpected data after the document"), ("nullx", 4, "unexpected data after the document"),
        ("0x10", 1, "unexpected data after the document"), ("\u{0B}{}", 0, "expected a value"), ("\u{FEFF}{}", 0, "expected a value"),
        ("-", 1, "expected a value"), ("1.2.3", 5, "expected a value"), ("1e", 2, "expected a value"), ("--1", 3, "expected a value"),
        ("1-2", 3, "expected a value"), ("1+", 2, "expected a value"), ("e5", 2, "expected a value"), ("-e5", 3, "expected a value"),
        (".e5", 3, "expected a value"), ("1e5.5", 5, "expected a value"), ("[-]", 2, "expected a value"), ("[1e]", 3, "expected a value"),
        (#"{"a":-}"#, 6, "expected a value"),
    ])
    func malformedDocumentsFailAtTheSameByteWithTheSameMessageAsBefore(_ text: String, _ offset: Int, _ message: String) {
        #expect(failure(Array(text.utf8)) == "invalid JSON at byte \(offset): \(message)")
    }

    @Test func bytesThatAreNotUTF8OutsideAStringAreNotAValue() {
        #expect(failure([0xFF]) == "invalid JSON at byte 0: expected a value")
        #expect(failure([0x5B, 0xC3, 0xA9, 0x5D]) == "invalid JSON at byte 1: expected a value")
    }

    @Test(arguments: [
        ("0", JSONValue.int(0)), ("-0", .int(0)), ("42", .int(42)), ("-17", .int(-17)), ("9223372036854775807", .int(.max)),
        ("-9223372036854775808", .int(.min)), ("123456789012345678", .int(123_456_789_012_345_678)),
        ("9223372036854775808", .number(9_223_372_036_854_775_808)), ("-9223372036854775809", .number(-9_223_372_036_854_775_808)),
        ("123456789012345678901234567890", .number(1.2345678901234568e29)), ("100000000000000000000", .number(1e20)),
        ("1E2", .number(100)), ("1e+2", .number(100)), ("1.5e3", .number(1500)), ("1e-2", .number(0.01)), ("-1.25E-3", .number(-0.00125)),
        ("0.1", .number(0.1)), ("216608.23", .number(216_608.23)), ("0.0000001", .number(1e-7)), ("1e22", .number(1e22)), ("1e23", .number(1e23)),
        ("1.7976931348623157e308", .number(.greatestFiniteMagnitude)), ("5e-324", .number(.leastNonzeroMagnitude)),
        ("2.2250738585072014e-308", .number(.leastNormalMagnitude)), ("1e400", .number(.infinity)), ("-1e400", .number(-.infinity)),
        ("1e-400", .number(0)), ("0.30000000000000004", .number(0.30000000000000004)), ("9007199254740993.0", .number(9_007_199_254_740_992)),
        // Accepted before though not JSON, and still: the standard library reads them.
        ("01", .int(1)), ("00", .int(0)), ("-01", .int(-1)), ("+1", .int(1)), (".5", .number(0.5)), ("1.", .number(1)), ("1.e5", .number(100_000)),
    ])
    func numbersReadAsTheyAlwaysWere(_ text: String, _ expected: JSONValue) throws {
        let value = try JSONParser.parse(text)
        #expect(value == expected)
        #expect(value.serialized(pretty: false) == expected.serialized(pretty: false))
    }

    @Test func negativeZeroKeepsItsSignOnlyAsAFraction() throws {
        #expect(try JSONParser.parse("-0") == .int(0))
        let fraction = try JSONParser.parse("-0.0")
        guard case .number(let value) = fraction else { Issue.record("-0.0 read as \(fraction)"); return }
        #expect(value == 0 && value.sign == .minus)
    }

    @Test(arguments: [
        (#""\u00e9\u00E9""#, "éé"), (#""\u4e2d""#, "中"), (#""\ud83d\ude00""#, "😀"), (#""\uD83D\uDE00""#, "😀"), (#""\uDBFF\uDFFF""#, "\u{10FFFF}"),
        (#""\u0000""#, "\u{0}"), (#""\u0041b""#, "Ab"), (#""\/\b\f\n\r\t\"\\""#, "/\u{08}\u{0C}\n\r\t\"\\"), ("\"\u{7F}\"", "\u{7F}"),
        // A surrogate without its other half is U+FFFD.
        (#""\uD800""#, "\u{FFFD}"), (#""\uDC00""#, "\u{FFFD}"), (#""\uD800x""#, "\u{FFFD}x"), (#""\uD800\n""#, "\u{FFFD}\n"),
        // A high surrogate followed by another escape: U+FFFD, then that escape (this crashed before).
        (#""\uD800\u0041""#, "\u{FFFD}A"), (#""\uD800\uD800""#, "\u{FFFD}\u{FFFD}"), (#""\uDBFF\uE000z""#, "\u{FFFD}\u{E000}z"),
        (#""\uD83D\uD83D\uDE00""#, "\u{FFFD}😀"),
    ])
    func unicodeEscapesDecodeWithSurrogatePairs(_ text: String, _ expected: String) throws {
        #expect(try JSONParser.parse(text).stringValue.map { Array($0.unicodeScalars) } == Array(expected.unicodeScalars))
    }

    @Test(arguments: [#""\u+041""#, #""\u-000""#, #""\u 041""#])
    func aUnicodeEscapeTakesExactlyFourHexDigits(_ text: String) {
        // The parser before read the four bytes as an integer, sign included, and took `\u+041` for `A`.
        #expect(failure(Array(text.utf8)) == "invalid JSON at byte 3: bad \\u escape")
    }

    @Test(arguments: [
        ([0xFF], "\u{FFFD}"), ([0xC0, 0x80], "\u{FFFD}\u{FFFD}"), ([0xED, 0xA0, 0x80], "\u{FFFD}\u{FFFD}\u{FFFD}"),
        ([0xE2, 0x82], "\u{FFFD}"), ([0xF4, 0x90, 0x80, 0x80], "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"), ([0x80], "\u{FFFD}"),
        ([0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80], "é€😀"), ([0xE2, 0x82, 0x5C, 0x6E], "\u{FFFD}\n"),
        ([0xE2, 0x82, 0x5C, 0x75, 0x30, 0x30, 0x65, 0x39], "\u{FFFD}é"), ([0x61, 0xF0, 0x9F, 0x98], "a\u{FFFD}"),
    ] as [([UInt8], String)])
    func invalidUTF8InAStringBecomesReplacementCharactersAsBefore(_ inside: [UInt8], _ expected: String) throws {
        // Overlong forms, encoded surrogates, truncated sequences and stray continuation bytes: each maximal invalid
        // part is one U+FFFD, as `String(decoding:as:)` repairs, also next to an escape.
        let value = try JSONParser.parse([0x22] + inside + [0x22])
        #expect(value.stringValue.map { Array($0.unicodeScalars) } == Array(expected.unicodeScalars))
    }

    @Test func nestingStopsAt512Levels() throws {
        for (open, empty, close) in [("[", "[]", "]"), (#"{"a":"#, "{}", "}")] {
            func nested(_ levels: Int) -> String { String(repeating: open, count: levels - 1) + empty + String(repeating: close, count: levels - 1) }
            #expect(throws: Never.self) { try JSONParser.parse(nested(512)) }
            #expect(failure(Array(nested(513).utf8)) == "invalid JSON at byte \(512 * open.utf8.count): nested deeper than 512")
        }
    }

    @Test func repeatedKeysAreKeptInOrderAndTheFirstIsFound() throws {
        let value = try JSONParser.parse(#"{"a": 1, "b": 2, "a": 3}"#)
        #expect(value.objectPairs.map(\.0) == ["a", "b", "a"])
        #expect(value["a"] == .int(1))
        #expect(value.serialized(pretty: false) == #"{"a":1,"b":2,"a":3}"#)
    }

    @Test func whitespaceIsSpaceTabLineFeedAndCarriageReturn() throws {
        #expect(try JSONParser.parse(" \t\n\r[ 1 ,\t2\n]\r\n ") == .array([.int(1), .int(2)]))
    }

    @Test func generatedDocumentsReadAsFoundationReadsThem() throws {
        var generator = DocumentGenerator(seed: 17)
        for _ in 0..<400 {
            let text = generator.document()
            let ours = try JSONParser.parse(Array(text.utf8))
            let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8))
            #expect(Self.difference(ours, theirs) == nil, "\(text)")
        }
    }

    @Test func numbersOfAnyLengthReadAsTheStandardLibraryReadsThem() throws {
        var generator = DocumentGenerator(seed: 41, longNumbers: true)
        for _ in 0..<20_000 {
            let text = generator.number()
            let value = try JSONParser.parse(text)
            if let integer = Int(text) {
                #expect(value == .int(integer), "\(text)")
            } else if case .number(let number) = value, let expected = Double(text) {
                #expect(number.bitPattern == expected.bitPattern, "\(text)")
            } else {
                Issue.record("\(text) read as \(value)")
            }
        }
    }

    @Test func everyProperPrefixOfADocumentIsRejected() {
        var generator = DocumentGenerator(seed: 29)
        for _ in 0..<40 {
            let bytes = Array(generator.document().utf8)
            for length in 0..<bytes.count {
                guard let error = error(Array(bytes[..<length])) else {
                    Issue.record("accepted \(String(decoding: bytes[..<length], as: UTF8.self).debugDescription)")
                    continue
                }
                #expect(error.offset <= length)
            }
        }
    }

    /// Ways to separate the items of a large document: as `serializedBytes` lays them out (where the other core's
    /// reading is guessed to start), compact, and on lines of their own but not four spaces in (no guess).
    static let separators = [",\n    ", ",", ",\n"]

    /// A document over the size that is read on two cores: an object with a field before and after an array of
    /// `count` generated documents, which hold every escape, brackets and commas inside strings.
    private static func largeDocument(_ count: Int = 12_000, separator: String) -> (text: String, items: [String]) {
        var generator = DocumentGenerator(seed: 61)
        let items = (0..<count).map { _ in generator.document() }
        return (#"{"before": "[,]", "items": [\#n"# + items.joined(separator: separator) + "\n], \"after\": [1, {\"k\": \"]\"}]}", items)
    }

    @Test(arguments: separators)
    func aLargeDocumentReadOnTwoCoresHoldsWhatEachItemHoldsOnItsOwn(separator: String) throws {
        let (text, items) = Self.largeDocument(separator: separator)
        #expect(text.utf8.count > 1 << 20)
        let value = try JSONParser.parse(Array(text.utf8))
        let expected = JSONValue.object([
            ("before", .string("[,]")), ("items", .array(try items.map { try JSONParser.parse($0) })),
            ("after", .array([.int(1), .object([("k", .string("]"))])])),
        ])
        #expect(value == expected)
        #expect(value.serializedBytes() == expected.serializedBytes())
    }

    @Test(arguments: separators)
    func aMalformedLargeDocumentFailsAtItsFirstErrorAsInOrder(separator: String) throws {
        // Items of a known shape, so each error's byte and message are those the reading in order gives.
        let item = #"{"n": 123, "s": "a,]"}"#
        let items = [String](repeating: item, count: 60_000)
        let prefix = #"{"items": ["#
        let text = prefix + items.joined(separator: separator) + "]}"
        #expect(text.utf8.count > 1 << 20)
        func offset(ofItem index: Int) -> Int { prefix.utf8.count + index * (item.utf8.count + separator.utf8.count) }
        func corrupted(_ changes: [(Int, UInt8)]) -> [UInt8] {
            var bytes = Array(text.utf8)
            for (offset, byte) in changes { bytes[offset] = byte }
            return bytes
        }
        let early = offset(ofItem: 100) + 7, late = offset(ofItem: 50_000) + 7
        // `1x3`: the number ends at `x`, where the object wants a comma.
        #expect(failure(corrupted([(late, UInt8(ascii: "x"))])) == "invalid JSON at byte \(late): expected ',' or '}'")
        #expect(failure(corrupted([(early, UInt8(ascii: "x")), (late, UInt8(ascii: "x"))])) == "invalid JSON at byte \(early): expected ',' or '}'")
        // A comma between items made a space, just after the middle (where the other core starts): the items meet.
        for item in [30_000, 30_001] {
            let comma = offset(ofItem: item) - separator.utf8.count
            #expect(failure(corrupted([(comma, UInt8(ascii: " "))])) == "invalid JSON at byte \(offset(ofItem: item)): expected ',' or ']'")
        }
        #expect(failure(Array(text.utf8.dropLast(3))) == "invalid JSON at byte \(text.utf8.count - 3): expected ',' or '}'")
        let nested = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let deep = prefix + items.joined(separator: separator) + separator + nested + "]}"
        #expect(failure(Array(deep.utf8)) == "invalid JSON at byte \(text.utf8.count - 2 + separator.utf8.count + 510): nested deeper than 512")
    }

    /// Documents whose middle has a comma laid out like one between items one level deep that is not: members of an
    /// object, items two levels deep. The other core's reading fails or reads the wrong array, and is not taken.
    @Test func aCommaGuessedWrongIsNotTaken() throws {
        let count = 150_000
        let members = (0..<count).map { #""k\#($0)": \#($0)"# }.joined(separator: ",\n    ")
        let object = try JSONParser.parse(Array(("{\"a\": {\n    " + members + "\n  }\n}").utf8))
        #expect(object == .object([("a", .object((0..<count).map { ("k\($0)", .int($0)) }))]))
        let numbers = (0..<count).map(String.init).joined(separator: ",\n    ")
        let deeper = try JSONParser.parse(Array(("{\"x\": [[" + numbers + "], 7]}").utf8))
        #expect(deeper == .object([("x", .array([.array((0..<count).map(JSONValue.int)), .int(7)]))]))
    }

    /// The error for `bytes` as people read it, nil when they parse.
    private func failure(_ bytes: [UInt8]) -> String? {
        error(bytes)?.description
    }

    private func error(_ bytes: [UInt8]) -> JSONParser.Failure? {
        do throws(JSONParser.Failure) {
            _ = try JSONParser.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    /// Where Foundation's reading differs from ours (same scalars, integers alike, doubles to the bit), nil when
    /// nowhere.
    static func difference(_ ours: JSONValue, _ theirs: Any, at path: String = "") -> String? {
        func leaf(_ same: Bool) -> String? {
            same ? nil : "\(path.isEmpty ? "the document" : path): \(ours) against \(type(of: theirs)) \(theirs)"
        }
        let number = theirs as? NSNumber
        let objCType = number.map { String(cString: $0.objCType) }
        switch ours {
        case .null: return leaf(theirs is NSNull)
        case .bool(let value): return leaf(objCType == "c" && number?.boolValue == value)
        case .int(let value): return leaf(["i", "l", "q", "s"].contains(objCType) && number?.int64Value == Int64(value))
        case .number(let value):
            // Foundation may make a fraction with an exponent an integer (`7922836195824400.0`), or an
            // `NSDecimalNumber` (`-5.077684102428e-08`), whose `doubleValue` is not always the nearest `Double`: a few
            // ulps of slack there only. `numbersOfAnyLengthReadAsTheStandardLibraryReadsThem` holds ours to the bit.
            guard let number, objCType != "c" else { return leaf(false) }
            let slack = theirs is NSDecimalNumber ? 4 * value.ulp : 0
            return leaf(number.doubleValue.bitPattern == value.bitPattern || abs(number.doubleValue - value) <= slack)
        case .string(let value): return leaf((theirs as? String).map { Array($0.unicodeScalars) } == Array(value.unicodeScalars))
        case .array(let items):
            guard let list = theirs as? [Any], list.count == items.count else { return leaf(false) }
            return zip(items, list).enumerated().lazy.compactMap { difference($1.0, $1.1, at: "\(path)[\($0)]") }.first
        case .object(let pairs):
            guard let map = theirs as? [String: Any], map.count == pairs.count else { return leaf(false) }
            return pairs.lazy.compactMap { key, value in
                map[key].map { difference(value, $0, at: path + "." + key.debugDescription) } ?? "\(path): no \(key.debugDescription)"
            }.first
        }
    }
}

/// Random JSON texts: every kind of value, strings with every escape and raw UTF-8 of one to four bytes, numbers in
/// integer, fraction and exponent forms (some with more digits than a `Double` holds exactly), whitespace between
/// every token. Keys are unique within an object. With `longNumbers`, integers of 19 digits, fractions of up to
/// 20 and exponents up to 40; without, at most 18 digits, 15 and 20, which Foundation reads as numbers of 64 bits
/// (it makes an `NSDecimalNumber` of `-6705772400451685843`).
struct DocumentGenerator {
    private var state: UInt64
    private let longNumbers: Bool

    init(seed: UInt64, longNumbers: Bool = false) {
        state = seed
        self.longNumbers = longNumbers
    }

    mutating func document() -> String {
        Bool.random(using: &self) ? object(depth: 0) : array(depth: 0)
    }

    private mutating func value(depth: Int) -> String {
        switch Int.random(in: 0..<(depth < 4 ? 9 : 7), using: &self) {
        case 0: return ["null", "true", "false"].randomElement(using: &self) ?? "null"
        case 1, 2, 3, 4: return number()
        case 5, 6: return string()
        case 7: return array(depth: depth + 1)
        default: return object(depth: depth + 1)
        }
    }

    private mutating func space() -> String {
        String((0..<Int.random(in: 0...2, using: &self)).map { _ in [" ", "\t", "\n", "\r"].randomElement(using: &self) ?? " " })
    }

    private mutating func array(depth: Int) -> String {
        let items = (0..<Int.random(in: 0...5, using: &self)).map { _ in space() + value(depth: depth) + space() }
        return "[" + space() + items.joined(separator: ",") + "]"
    }

    private mutating func object(depth: Int) -> String {
        let fields = (0..<Int.random(in: 0...5, using: &self)).map { index in
            space() + string(prefix: "k\(index)") + space() + ":" + space() + value(depth: depth) + space()
        }
        return "{" + space() + fields.joined(separator: ",") + "}"
    }

    mutating func number() -> String {
        Bool.random(using: &self) ? integer() : fraction()
    }

    private mutating func integer() -> String {
        let digits = Int.random(in: 1...(longNumbers ? 19 : 18), using: &self)
        let magnitude = digits == 19 ? UInt64.random(in: 1_000_000_000_000_000_000...UInt64(Int64.max), using: &self)
            : UInt64.random(in: 0...(digits == 1 ? 9 : (0..<digits).reduce(1) { value, _ in value * 10 } - 1), using: &self)
        return (Bool.random(using: &self) ? "-" : "") + String(magnitude)
    }

    private mutating func fraction() -> String {
        let whole = String(UInt64.random(in: 0...999_999, using: &self))
        let fraction = String((0..<Int.random(in: 1...(longNumbers ? 14 : 9), using: &self)).map { _ in Character(String(Int.random(in: 0...9, using: &self))) })
        var text = (Bool.random(using: &self) ? "-" : "") + whole + (Bool.random(using: &self) ? "." + fraction : "")
        if text.last?.isNumber == true, !text.contains("."), Bool.random(using: &self) { text += ".0" }
        if Int.random(in: 0..<3, using: &self) == 0 || !text.contains(".") {
            text += (Bool.random(using: &self) ? "e" : "E") + (["", "+", "-"].randomElement(using: &self) ?? "") + String(Int.random(in: 0...(longNumbers ? 40 : 20), using: &self))
        }
        return text
    }

    private mutating func string(prefix: String = "") -> String {
        var text = "\"" + prefix
        for _ in 0..<Int.random(in: 0...12, using: &self) {
            switch Int.random(in: 0..<8, using: &self) {
            case 0: text += ["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"].randomElement(using: &self) ?? "\\n"
            case 1:
                let code = UInt32.random(in: 0...0xFFFF, using: &self)
                let scalar = (0xD800...0xDFFF).contains(code) ? 0x41 : code
                let hex = String(scalar, radix: 16, uppercase: Bool.random(using: &self))
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            case 2:
                let code = UInt32.random(in: 0x10000...0x10FFFF, using: &self) - 0x10000
                text += String(format: "\\u%04X\\u%04x", 0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))
            case 3: text.unicodeScalars.append(Unicode.Scalar(UInt32.random(in: 0x80...0x7FF, using: &self)) ?? "é")
            case 4: text.unicodeScalars.append(Unicode.Scalar(UInt32.random(in: 0xE000...0xFFFD, using: &self)) ?? "€")
            case 5: text.unicodeScalars.append(Unicode.Scalar(UInt32.random(in: 0x10000...0x10FFFF, using: &self)) ?? "😀")
            default:
                let byte = UInt8.random(in: 0x20...0x7E, using: &self)
                text += byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") ? "\\" + String(UnicodeScalar(byte)) : String(UnicodeScalar(byte))
            }
        }
        return text + "\""
    }
}

extension DocumentGenerator: RandomNumberGenerator {
    /// SplitMix64: the same documents on every run and platform.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
