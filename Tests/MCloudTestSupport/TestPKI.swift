public import Foundation

/// A throwaway PKI made with the openssl command: a CA, a server certificate for 127.0.0.1, a client certificate.
public struct TestPKI: Sendable {
    public let directory: URL

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-pki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try run(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=mcloud test CA"])
        for (name, subject, extensions) in [
            ("server", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1,DNS:localhost"),
            ("client", "/CN=mcloud-client", "extendedKeyUsage=clientAuth"),
        ] {
            try run(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", subject])
            try Data(extensions.utf8).write(to: directory.appendingPathComponent("\(name).ext"))
            try run(["x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "\(name).pem", "-days", "2", "-extfile", "\(name).ext"])
        }
    }

    public func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    public func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: directory.appendingPathComponent(name))) }

    private func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestBedEnvironment.Missing("openssl \(arguments.first ?? "") failed") }
    }
}
