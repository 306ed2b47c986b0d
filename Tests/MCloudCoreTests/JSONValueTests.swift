import MCloudCore
import Testing

/// The writer's bytes, recorded from the `String`-based writer before it: states, saved plans and digests depend
/// on them staying the same.
@Suite struct JSONValueTests {
    @Test(arguments: [
        (JSONValue.null, "null"), (.bool(true), "true"), (.bool(false), "false"), (.int(0), "0"), (.int(-1), "-1"),
        (.int(.min), "-9223372036854775808"), (.int(.max), "9223372036854775807"), (.number(-0.0), "0"), (.number(0.5), "0.5"),
        (.number(2), "2"), (.number(999_999_999_999_999), "999999999999999"), (.number(1e15), "1000000000000000.0"),
        (.number(-1e15), "-1000000000000000.0"), (.number(1e-7), "1e-07"), (.number(1.5e300), "1.5e+300"), (.number(123.456), "123.456"),
        (.number(.infinity), "null"), (.number(.nan), "null"), (.string(""), #""""#),
        (.string("a\"b\\c\n\r\t\u{08}\u{0C}\u{00}\u{1F}\u{7F}é😀/"), #""a\"b\\c\n\r\t\u0008\u000c\u0000\u001f\#u{7F}é😀/""#),
        (.array([]), "[]"), (.object([]), "{}"),
    ])
    func scalarsAndEmptiesAreWrittenAsBefore(_ value: JSONValue, _ text: String) {
        #expect(value.serialized(pretty: false) == text)
        #expect(value.serialized() == text)
        #expect(value.serializedBytes() == Array(text.utf8))
    }

    @Test func nestedValuesAreIndentedByTwoSpacesOrWrittenCompact() {
        let value = JSONValue.object([
            ("a", .array([.int(1), .string("x")])), ("b\n", .object([("c", .null)])), ("", .bool(false)),
            ("d", .array([.int(1), .array([]), .object([("k", .object([]))])])),
        ])
        #expect(value.serialized(pretty: false) == #"{"a":[1,"x"],"b\n":{"c":null},"":false,"d":[1,[],{"k":{}}]}"#)
        #expect(value.serialized() == """
            {
              "a": [
                1,
                "x"
              ],
              "b\\n": {
                "c": null
              },
              "": false,
              "d": [
                1,
                [],
                {
                  "k": {}
                }
              ]
            }
            """)
    }

    @Test func anEscapeIsFoundAtEveryPlaceOfStringsOfEveryLength() {
        // Short strings are stored inline and long ones on the heap: the check for escapes must see every byte of both.
        for length in 0..<40 {
            for place in 0...length {
                for (character, escaped) in [("\"", #"\""#), ("\\", #"\\"#), ("\n", #"\n"#), ("\u{1F}", #"\u001f"#), ("é", "é")] {
                    let text = String(repeating: "a", count: place) + character + String(repeating: "b", count: length - place)
                    let expected = "\"" + String(repeating: "a", count: place) + escaped + String(repeating: "b", count: length - place) + "\""
                    #expect(JSONValue.string(text).serialized(pretty: false) == expected)
                }
            }
        }
    }

    @Test func writingAfterOtherBytesAppends() {
        var output = Array("x=".utf8)
        JSONValue.array([.int(1)]).write(into: &output, pretty: false)
        #expect(output == Array("x=[1]".utf8))
    }

    /// Arrays this long are written on every core (`partedCount`): the bytes are those of one written in order,
    /// which lays out each item as it lays it out alone, one level further in.
    @Test func aLongArrayIsWrittenAsItsItemsAreOneByOne() throws {
        var generator = DocumentGenerator(seed: 59)
        let items = try (0..<3_000).map { _ in try JSONParser.parse(generator.document()) }
        let value = JSONValue.object([("before", .int(1)), ("items", .array(items))])
        let compact = #"{"before":1,"items":["# + items.map { $0.serialized(pretty: false) }.joined(separator: ",") + "]}"
        #expect(value.serialized(pretty: false) == compact)
        let indented = items.map { item in item.serialized().split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n") }
        #expect(value.serialized() == "{\n  \"before\": 1,\n  \"items\": [\n" + indented.joined(separator: ",\n") + "\n  ]\n}")
        #expect(JSONValue.array(items).serialized() == "[\n" + items.map { $0.serialized().split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n") }.joined(separator: ",\n") + "\n]")
    }

    @Test func generatedDocumentsReadBackAsWritten() throws {
        var generator = DocumentGenerator(seed: 53, longNumbers: true)
        for _ in 0..<300 {
            let value = try JSONParser.parse(generator.document())
            for pretty in [true, false] {
                let bytes = value.serializedBytes(pretty: pretty)
                #expect(try JSONParser.parse(bytes).serializedBytes(pretty: pretty) == bytes)
                #expect(bytes == Array(value.serialized(pretty: pretty).utf8))
            }
        }
    }
}
