import MCloudCore
import MCloudPlanner
@testable import MCloudRender
import MCloudYAML
import Testing

/// The fast writer against MCloudYAML: the same bytes as `YAMLEmitter` on everything the examples render, and
/// every string read back as the same string.
@Suite struct BlockYAMLWriterTests {
    @Test(arguments: RenderFixtures.examples)
    func theWriterMatchesYAMLEmitterOnEveryRenderedObject(_ name: String) throws {
        let (model, plan) = try RenderFixtures.example(name)
        let rendering = Rendering(model: model, placement: Placement(plan))
        let bodies = rendering.allObjects.map(\.object.body) + rendering.allResources.map(\.body)
            + rendering.clusters.map { ClusterRenderer.kustomization($0.objects) }
        for body in bodies {
            #expect(body.yaml == (try YAMLEmitter.emit(body.yamlNode)))
        }
    }

    static let awkwardStrings = [
        "plain", "yes", "No", "ON", "off", "y", "n", "true", "False", "null", "~", "=", "<<", "", " lead", "trail ", "1", "0x1F",
        "0o17", "1e3", ".5", ".inf", "+1", "-1", "1_000", "12:30", "2025.03", "500m", "-dash", "- item", "? key", "key:", "a: b",
        "a:b", "a #b", "a#b", "#comment", "&anchor", "*alias", "!tag", "|literal", ">folded", "'single'", "\"double\"", "%directive",
        "@at", "`tick", "[list]", "{map}", ",comma", "back\\slash", "say \"hi\"", "tab\there", "two\nlines", "crlf\r\n",
        "bell\u{07}", "nul\u{00}", "del\u{7F}", "next\u{85}line", "line\u{2028}sep", "\u{FEFF}bom", "\u{A0}nbsp", "ünïcödé", "日本語",
        "emoji 🚀", "*/5 * * * *", "/static/*", "https://example.com/a?b=c#d", "cbr,ecb", "turns:turn.example:443",
    ]

    @Test(arguments: awkwardStrings)
    func everyStringReadsBackAsTheSameString(_ value: String) throws {
        let text = BlockYAMLWriter.document(.map([(value, .string(value))]))
        let read = YAMLReader.read(text, file: "test.yaml")
        #expect(read.diagnostics.isEmpty, "\(text)")
        let pair = try #require(read.documents.first?.root?.mapping?.first)
        #expect(pair.key.scalar?.resolved == .string(value))
        #expect(pair.value.scalar?.resolved == .string(value))
    }

    /// Where a string is printable ASCII, plain or quoted is decided exactly as `YAMLEmitter` decides.
    @Test(arguments: awkwardStrings.filter { $0.unicodeScalars.allSatisfy { (0x20..<0x7F).contains($0.value) } })
    func printableASCIIIsQuotedExactlyWhereYAMLEmitterQuotesIt(_ value: String) throws {
        let node: ObjectNode = ["key": .string(value), "list": [.string(value)]]
        #expect(node.yaml == (try YAMLEmitter.emit(node.yamlNode)))
    }

    @Test func numbersBooleansAndEmptyCollectionsAreWrittenAsYAMLEmitterWritesThem() throws {
        let node: ObjectNode = [
            "int": 42, "negative": -7, "number": .number(0.5), "whole": .number(16), "bool": true,
            "emptyMap": [:], "emptyList": [], "nested": [[["a": 1, "b": [1, 2]]], [[1, 2], [:]]],
        ]
        #expect(node.yaml == (try YAMLEmitter.emit(node.yamlNode)))
    }

    @Test func aSharedMappingIsPastedAtAnyIndent() throws {
        let labels = ObjectNode.shared(SharedMapping([("app", "web"), ("tier", "front end")]))
        let node: ObjectNode = ["labels": labels, "spec": ["template": ["labels": labels]], "items": [labels]]
        #expect(node.yaml == (try YAMLEmitter.emit(node.yamlNode)))
    }
}
