import Foundation

/// A bash script checked as the VMs will run it: `bash -n`, then Debian's shellcheck at style severity. Nil when both
/// accept it, else what they said.
public func bashLint(_ script: String) async throws -> String? {
    let path = NSTemporaryDirectory() + "mcloud-lint-\(UUID().uuidString.prefix(8))"
    try Data(script.utf8).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let syntax = try await Command.run("/bin/bash", ["-n", path])
    guard syntax.succeeded else { return "bash -n: \(syntax.output)" }
    let lint = try await Command.run("/usr/bin/shellcheck", ["--shell=bash", "--severity=style", path])
    return lint.succeeded ? nil : "shellcheck: \(lint.output.prefix(4000))"
}
