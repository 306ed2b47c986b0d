import Foundation

/// Files under Tests/MCloudAWSTests/Fixtures.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func text(_ path: String) throws -> String {
        String(decoding: try Data(contentsOf: directory.appendingPathComponent(path)), as: UTF8.self)
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(path)))
    }

    /// The folders of the official SigV4 suite (one per case).
    static var sigV4Cases: [String] {
        let folder = directory.appendingPathComponent("sigv4")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasSuffix(".md") }.sorted()
    }
}
