import Foundation

/// Draws a DOT graph with Graphviz, for `mcloud graph --format svg|html`.
enum Graphviz {
    /// Graphviz's `dot -Tsvg`, found on PATH.
    static func svg(_ dot: String, _ context: CommandContext) throws(CommandFailure) -> String {
        let path = (context.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/dot" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else {
            throw CommandFailure("svg and html are drawn by Graphviz's 'dot', which is not on PATH (Debian: apt-get install graphviz); --format dot needs nothing")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-Tsvg"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = Pipe()
        do {
            try process.run()
        } catch {
            throw CommandFailure("cannot run \(path): \(error.localizedDescription)")
        }
        input.fileHandleForWriting.write(Data(dot.utf8))
        try? input.fileHandleForWriting.close()
        let svg = output.fileHandleForReading.readDataToEndOfFile()
        while process.isRunning { usleep(1000) }
        guard process.terminationStatus == 0 else { throw CommandFailure("\(path) failed with status \(process.terminationStatus)") }
        return String(decoding: svg, as: UTF8.self)
    }
}
