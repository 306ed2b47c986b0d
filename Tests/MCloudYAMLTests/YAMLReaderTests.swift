import MCloudCore
import MCloudYAML
import Testing

@Suite struct YAMLReaderTests {
    private func read(_ text: String, limits: YAMLLimits = .standard) -> YAMLReadResult {
        YAMLReader.read(text, file: "t.yaml", limits: limits)
    }

    private func root(_ text: String) throws -> YAMLNode {
        let result = read(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        return try #require(result.documents.first?.root)
    }

    @Test func everyNodeCarriesItsLineAndColumn() throws {
        let node = try root("""
            spec:
              replicas: 4
              ports:
                - { name: http, port: 8080 }
            """)
        let spec = try #require(node["spec"])
        #expect(spec.location == SourceLocation(file: "t.yaml", line: 2, column: 3))
        #expect(spec["replicas"]?.location == SourceLocation(file: "t.yaml", line: 2, column: 13))
        let port = try #require(spec["ports"]?.sequence?.first)
        #expect(port.location == SourceLocation(file: "t.yaml", line: 4, column: 7))
        #expect(port["port"]?.location == SourceLocation(file: "t.yaml", line: 4, column: 27))
    }

    struct Resolution: Sendable, CustomTestStringConvertible {
        var yaml: String
        var expected: ResolvedScalar
        var testDescription: String { yaml }
    }

    @Test(arguments: [
        Resolution(yaml: "v: \"15\"", expected: .string("15")),
        Resolution(yaml: "v: '15'", expected: .string("15")),
        Resolution(yaml: "v: 15", expected: .int(15)),
        Resolution(yaml: "v: -3", expected: .int(-3)),
        Resolution(yaml: "v: 0x1F", expected: .int(31)),
        Resolution(yaml: "v: 0o17", expected: .int(15)),
        Resolution(yaml: "v: 1.5", expected: .float(1.5)),
        Resolution(yaml: "v: 1e3", expected: .float(1000)),
        Resolution(yaml: "v: .inf", expected: .float(.infinity)),
        Resolution(yaml: "v: true", expected: .bool(true)),
        Resolution(yaml: "v: False", expected: .bool(false)),
        Resolution(yaml: "v: yes", expected: .string("yes")),
        Resolution(yaml: "v: on", expected: .string("on")),
        Resolution(yaml: "v: off", expected: .string("off")),
        Resolution(yaml: "v: null", expected: .null),
        Resolution(yaml: "v: ~", expected: .null),
        Resolution(yaml: "v:", expected: .null),
        Resolution(yaml: "v: !!str 15", expected: .string("15")),
        Resolution(yaml: "v: 15.10", expected: .float(15.1)),
        Resolution(yaml: "v: 1_000", expected: .string("1_000")),
        Resolution(yaml: "v: 152-FZ", expected: .string("152-FZ")),
        Resolution(yaml: "v: |\n  text\n", expected: .string("text\n")),
    ])
    func plainScalarsResolveByTheCoreSchemaAndQuotedOnesStayStrings(_ case: Resolution) throws {
        let node = try root(`case`.yaml)
        #expect(node["v"]?.scalar?.resolved == `case`.expected)
    }

    @Test func multipleDocumentsAndEmptyOnesAreRead() {
        let result = read("a: 1\n---\n---\n# only a comment\n---\nb: 2\n")
        #expect(result.diagnostics.isEmpty)
        #expect(result.documents.count == 4)
        #expect(result.documents.map { $0.root == nil } == [false, true, true, false])
        #expect(result.documents[3].location.line == 5)
    }

    @Test func aByteOrderMarkIsSkippedWithoutShiftingColumns() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("kind: Cloud\n".utf8)
        let result = YAMLReader.read(bytes, file: "bom.yaml")
        #expect(result.diagnostics.isEmpty)
        let node = try #require(result.documents.first?.root)
        #expect(node["kind"]?.location == SourceLocation(file: "bom.yaml", line: 1, column: 7))
    }

    @Test func aliasesExpandToTheAnchoredNode() throws {
        let node = try root("base: &b { cpu: 1 }\ncopy: *b\n")
        #expect(node["copy"]?["cpu"]?.scalar?.value == "1")
    }

    @Test func anAliasBombFailsFastWithAPosition() {
        var lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1...9 {
            let refs = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            lines.append("a\(level): &a\(level) [\(refs)]")
        }
        let result = read(lines.joined(separator: "\n") + "\n")
        #expect(result.diagnostics.map(\.description).count == 1)
        let diagnostic = result.diagnostics.first
        #expect(diagnostic?.message == "document expands to more than 100000 nodes through aliases; refusing it (an alias bomb?)")
        #expect((diagnostic?.location?.line ?? 0) >= 5)
    }

    @Test func anAliasWithoutAnAnchorIsAnError() {
        let result = read("a: *nowhere\n")
        #expect(result.diagnostics.map(\.description) == ["t.yaml:1:4: error: alias *nowhere refers to no anchor &nowhere defined before it"])
    }

    @Test func duplicateKeysNameBothPositions() {
        let result = read("name: a\nother: 1\nname: b\n")
        #expect(result.diagnostics.map(\.description) == ["t.yaml:3:1: error: duplicate key \"name\"; it was first defined at t.yaml:1:1"])
    }

    @Test func tabsInIndentationAreReportedWhereTheyAre() {
        let result = read("spec:\n\treplicas: 2\n")
        #expect(result.diagnostics.map(\.description) == [
            "t.yaml:2:1: error: found character that cannot start any token (while scanning for the next token); YAML does not allow tabs for indentation, use spaces",
        ])
    }

    @Test func invalidUTF8IsReportedAtItsByte() {
        let bytes = Array("a: 1\nb: ".utf8) + [0xFF, 0xFE] + Array("\n".utf8)
        let result = YAMLReader.read(bytes, file: "bin.yaml")
        #expect(result.diagnostics.map(\.description) == ["bin.yaml:2:4: error: invalid leading UTF-8 octet: the file is not UTF-8 YAML text"])
    }

    @Test func deepNestingStopsAtTheDepthLimit() {
        let text = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        let result = read(text)
        #expect(result.diagnostics.map(\.description) == ["t.yaml:1:201: error: collections nest deeper than 200 levels"])
    }

    @Test func documentsBeforeAFatalErrorAreKept() {
        let result = read("a: 1\n---\nb: \"unterminated\n")
        #expect(result.documents.count == 1)
        #expect(result.diagnostics.count == 1)
        #expect(result.diagnostics.first?.location?.line == 4)
    }
}
