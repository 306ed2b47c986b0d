import Foundation
import MCloudSecrets

/// The recorded test identity, the tool runner, and paths of the fixtures.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden").path
    static let identityFile = "\(directory)/age.key"
    /// age-keygen's pair, recorded when the fixture was made.
    static let identityText = "AGE-SECRET-KEY-1VMMEZ8KJ8TCNU07KTF6L7DC0E3SCEFNCD5S05VTMV67WPFJU9X9SSGEMUM"
    static let recipientText = "age1r4727e6qa50d0xk0npw28a2eer4fedpew6j5ujrhfa4d25tfpussjhmf9w"

    static func identity() throws -> AgeIdentity {
        try AgeKeyFile.load(path: identityFile)
    }

    static func root() throws -> SecretRoot {
        SecretRoot(identity: try identity())
    }

    struct Run {
        var status: Int32
        var output: [UInt8]
        var error: String
    }

    /// Runs a tool with `input` on its standard input; the tools (age, python3) come from scripts/install-deps.sh test.
    static func run(_ executable: String, _ arguments: [String], input: [UInt8] = []) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: Data(input))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let error = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: [UInt8](output), error: String(decoding: error, as: UTF8.self))
    }
}
