import Foundation
import Testing

/// The Python test server in Fixtures/, started on a free loopback port for one test and stopped after it.
final class TestServer {
    let process = Process()
    let port: Int

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/http_test_server.py").path

    init(arguments: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw ServerError(message: "the test server did not start: \(text)")
        }
        self.port = port
    }

    /// SIGKILL and no `waitUntilExit`, which can hang on Linux when called off the main run loop.
    deinit {
        kill(process.processIdentifier, SIGKILL)
    }

    struct ServerError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

/// A throwaway PKI made with the openssl command: a CA, a server certificate for 127.0.0.1, a client certificate.
struct TestPKI {
    let directory: URL

    init() throws {
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

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: directory.appendingPathComponent(name))) }

    private func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestServer.ServerError(message: "openssl \(arguments.first ?? "") failed") }
    }
}
