import MCloudCore
import Testing

@Suite struct DiagnosticTests {
    @Test func diagnosticsPrintLikeACompilerAndSortByFileAndPosition() {
        let diagnostics = [
            Diagnostic.warning(SourceLocation(file: "b.yaml", line: 1, column: 1), "w"),
            Diagnostic.error(SourceLocation(file: "a.yaml", line: 10, column: 2), "late"),
            Diagnostic.error(SourceLocation(file: "a.yaml", line: 2, column: 5), "early"),
            Diagnostic(.error, file: nil, "no Application"),
        ].sorted()
        #expect(diagnostics.map(\.description) == [
            "a.yaml:2:5: error: early",
            "a.yaml:10:2: error: late",
            "b.yaml:1:1: warning: w",
            "error: no Application",
        ])
        #expect(diagnostics.errorCount == 3)
        #expect(diagnostics.warningCount == 1)
    }
}
