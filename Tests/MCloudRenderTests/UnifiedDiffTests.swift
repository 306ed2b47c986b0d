import Foundation
@testable import MCloudRender
import MCloudTestSupport
import Testing

/// `render --check` shows changed files as unified diffs: hunk headers as diff writes them, three lines of context,
/// and output `git apply` takes (checked against git itself on texts edited at random).
@Suite struct UnifiedDiffTests {
    static let ten = (1...10).map { "line \($0)\n" }.joined()

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var old: String
        var new: String
        var expected: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "identical texts", old: ten, new: ten, expected: ""),
        Case(
            name: "one line changed in the middle", old: ten, new: ten.replacingOccurrences(of: "line 5\n", with: "line five\n"),
            expected: "--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+line five\n line 6\n line 7\n line 8\n"
        ),
        Case(
            name: "a line added at the start", old: ten, new: "line 0\n" + ten,
            expected: "--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n+line 0\n line 1\n line 2\n line 3\n"
        ),
        Case(
            name: "the last line removed", old: ten, new: String(ten.dropLast("line 10\n".count)),
            expected: "--- a/f\n+++ b/f\n@@ -7,4 +7,3 @@\n line 7\n line 8\n line 9\n-line 10\n"
        ),
        Case(
            name: "changes far apart make two hunks", old: ten,
            new: ten.replacingOccurrences(of: "line 1\n", with: "one\n").replacingOccurrences(of: "line 10\n", with: "ten\n"),
            expected: "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-line 1\n+one\n line 2\n line 3\n line 4\n@@ -7,4 +7,4 @@\n line 7\n line 8\n line 9\n-line 10\n+ten\n"
        ),
        Case(name: "a new file", old: "", new: "a\nb\n", expected: "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b\n"),
        Case(
            name: "a last line without a line break", old: "a\nb\n", new: "a\nb",
            expected: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"
        ),
    ]

    @Test(arguments: cases)
    func diffsAsDiffWritesThem(_ example: Case) {
        #expect(UnifiedDiff.diff(old: example.old, new: example.new, oldName: "a/f", newName: "b/f") == example.expected)
    }

    /// Random edits of a YAML-like text: git applies every diff and gets the new text.
    @Test func gitAppliesEveryDiffToTheOldText() async throws {
        var generator = SystemRandomNumberGenerator()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-diff-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let words = ["replicas: 3", "kind: Deployment", "  name: web", "- a", "- b", "", "spec:", "  ports: []"]
        for round in 0..<30 {
            let old = (0..<Int.random(in: 0...40, using: &generator)).map { _ in words.randomElement(using: &generator) ?? "" }
            var new = old
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let at = Int.random(in: 0...new.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: new.insert("added \(round)", at: at)
                case 1 where at < new.count: new.remove(at: at)
                default: if at < new.count { new[at] = "changed \(round)" }
                }
            }
            let oldText = old.map { $0 + "\n" }.joined(), newText = new.map { $0 + "\n" }.joined()
            let patch = UnifiedDiff.diff(old: oldText, new: newText, oldName: "a/f.yaml", newName: "b/f.yaml")
            guard !patch.isEmpty else {
                #expect(oldText == newText)
                continue
            }
            try Data(oldText.utf8).write(to: URL(fileURLWithPath: folder + "/f.yaml"))
            try Data(patch.utf8).write(to: URL(fileURLWithPath: folder + "/change.patch"))
            let git = try await Command.run("/usr/bin/env", ["git", "apply", "change.patch"], directory: folder)
            #expect(git.succeeded, "git apply refused:\n\(patch)\n\(git.stderr)")
            #expect(try String(contentsOfFile: folder + "/f.yaml", encoding: .utf8) == newText, "after git apply of\n\(patch)")
        }
    }

    @Test func theShortestEditIsFound() {
        let a = UnifiedDiff.lines("a\nb\nc\na\nb\nb\na\n"), b = UnifiedDiff.lines("c\nb\na\nb\na\nc\n")
        let edits = UnifiedDiff.script(a, b)
        // Myers' example: edit distance 5.
        #expect(edits.filter { if case .equal = $0 { false } else { true } }.count == 5)
    }
}
