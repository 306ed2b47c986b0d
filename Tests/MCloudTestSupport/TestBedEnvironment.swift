import Foundation

/// The env file a test bed script writes (`KEY=value` lines) when its bed runs. Tests that need a bed fail, never
/// skip, when it is not running: the message says which script starts it.
public struct TestBedEnvironment: Sendable {
    public let values: [String: String]

    public struct Missing: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }

        public init(_ message: String) {
            self.message = message
        }
    }

    /// Reads `directory/env`; `start` is the command that brings the bed up, for the message when it is missing.
    public static func load(directory: String, start: String) throws -> TestBedEnvironment {
        guard let data = FileManager.default.contents(atPath: "\(directory)/env") else {
            throw Missing("no test bed: run \(start) (looked for \(directory)/env)")
        }
        var values: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return TestBedEnvironment(values: values)
    }

    public subscript(key: String) -> String { values[key] ?? "" }
}
