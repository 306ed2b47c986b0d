import Foundation
import Testing

/// Compares output with a file under Golden/; `MCLOUD_RECORD_GOLDEN=1 swift test` rewrites the files instead. Paths
/// under the checkout (a policy rule's FILE:LINE:COL, say) are compared relative to it, so a golden holds wherever
/// the repository is cloned.
enum Golden {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static func check(_ output: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let actual = output.replacingOccurrences(of: repositoryRoot + "/", with: "")
        let file = directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["MCLOUD_RECORD_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: file)
            return
        }
        guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record("missing golden file \(name); record it with MCLOUD_RECORD_GOLDEN=1 swift test", sourceLocation: sourceLocation)
            return
        }
        #expect(actual == expected, "golden \(name) differs", sourceLocation: sourceLocation)
    }
}
