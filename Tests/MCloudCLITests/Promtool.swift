import Foundation

/// Debian's `promtool` (package prometheus), which checks metrics and alert rules as Prometheus reads them.
enum Promtool {
    static let path = "/usr/bin/promtool"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs it with `input` on standard input; its exit status and what it printed on either stream.
    static func run(_ arguments: [String], input: String = "") throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let stdin = Pipe()
        let output = Pipe()
        process.standardInput = stdin
        process.standardOutput = output
        process.standardError = output
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: printed, as: UTF8.self))
    }
}
