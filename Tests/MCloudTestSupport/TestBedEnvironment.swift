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

extension TestBedEnvironment {
    /// The profile name the bed tests' catalogs and bodies give as their clouds' backup identity
    /// (`endpoints.objectStorage.backupProfile`).
    public static let backupProfile = "bed-backup"

    /// The keys of moto's backup user (`scripts/testbed/moto.sh`), else, on a bed started before it made one, of its
    /// test user; both are valid on moto.
    public var backupKeys: (keyID: String, secret: String) {
        let keyID = self["MCLOUD_TEST_MOTO_BACKUP_ACCESS_KEY_ID"], secret = self["MCLOUD_TEST_MOTO_BACKUP_SECRET_ACCESS_KEY"]
        return keyID.isEmpty || secret.isEmpty ? (self["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"], self["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"]) : (keyID, secret)
    }

    /// Whether moto's backup user is another identity than its test user, the one mcloud deploys with.
    public var hasSeparateBackupUser: Bool { !self["MCLOUD_TEST_MOTO_BACKUP_ACCESS_KEY_ID"].isEmpty }

    /// Writes an AWS config file at `path` holding `backupKeys` as the profile `backupProfile`, for a run whose
    /// `AWS_CONFIG_FILE` names it.
    public func writeBackupProfile(to path: String) throws {
        let keys = backupKeys
        let text = "[profile \(Self.backupProfile)]\naws_access_key_id = \(keys.keyID)\naws_secret_access_key = \(keys.secret)\nregion = us-east-1\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
