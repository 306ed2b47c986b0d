import Foundation
import MCloudCrypto
import Testing

/// Ed25519 keys and the certificates an authority issues, held to RFC 8032 and to Debian's `openssl` command.
@Suite struct CertificateTests {
    /// RFC 8032, section 7.1, test 1: the empty message.
    @Test func ed25519GivesRFC8032sKeyAndSignature() throws {
        let key = try Ed25519Key(seed: hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        #expect(key.publicKey == hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
        let signature = try key.sign([UInt8]())
        #expect(
            signature
                == hex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
        )
    }

    static let validity = (notBefore: 1_767_225_600, notAfter: 2_082_758_400)  // 2026-01-01 to 2036-01-01

    func authority() throws -> CertificateAuthority {
        try CertificateAuthority(
            key: Ed25519Key(seed: [UInt8](repeating: 1, count: 32)),
            request: CertificateRequest(commonName: "retail-bank CA", serialNumber: [1], notBefore: Self.validity.notBefore, notAfter: Self.validity.notAfter)
        )
    }

    static let server = CertificateRequest(
        commonName: "payments-db", dnsNames: ["payments-db.retail-bank-eu.svc", "payments-db.example.net"], ipAddresses: ["10.0.0.5", "2001:db8::5"],
        serialNumber: [0x42, 0x17], notBefore: validity.notBefore, notAfter: validity.notAfter
    )

    @Test func aServerCertificateVerifiesWithOpenSSLAgainstItsAuthorityAndNamesItsHostsAndAddresses() throws {
        let authority = try authority()
        let certificate = try authority.issue(Self.server, for: Ed25519Key(seed: [UInt8](repeating: 2, count: 32)))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-ca-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try authority.certificatePEM.write(toFile: "\(directory)/ca.pem", atomically: true, encoding: .utf8)
        try certificate.write(toFile: "\(directory)/server.pem", atomically: true, encoding: .utf8)
        for (host, valid) in [("payments-db.retail-bank-eu.svc", true), ("ledger-db.retail-bank-eu.svc", false)] {
            let verify = try openssl(["verify", "-CAfile", "\(directory)/ca.pem", "-purpose", "sslserver", "-verify_hostname", host, "\(directory)/server.pem"])
            #expect((verify.status == 0 && verify.output.hasSuffix(": OK\n")) == valid, "\(host): \(verify.output)")
        }
        let names = try openssl(["x509", "-noout", "-ext", "subjectAltName,basicConstraints", "-in", "\(directory)/server.pem"])
        for expected in ["DNS:payments-db.retail-bank-eu.svc", "DNS:payments-db.example.net", "IP Address:10.0.0.5", "IP Address:2001:DB8:0:0:0:0:0:5", "CA:FALSE"] {
            #expect(names.output.contains(expected), "\(names.output)")
        }
        // Another authority's certificate does not vouch for it.
        let stranger = try CertificateAuthority(key: Ed25519Key(seed: [UInt8](repeating: 3, count: 32)), request: authority.request)
        try stranger.certificatePEM.write(toFile: "\(directory)/other.pem", atomically: true, encoding: .utf8)
        #expect(try openssl(["verify", "-CAfile", "\(directory)/other.pem", "\(directory)/server.pem"]).status != 0)
    }

    /// A TLS 1.3 handshake between OpenSSL's server and client, the client verifying the host name against the authority:
    /// what a database server and its clients do with these files.
    @Test func aTLSClientVerifiesTheServerByItsAuthorityAndHostName() throws {
        let authority = try authority()
        let key = try Ed25519Key(seed: [UInt8](repeating: 2, count: 32))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try authority.certificatePEM.write(toFile: "\(directory)/ca.pem", atomically: true, encoding: .utf8)
        try authority.issue(Self.server, for: key).write(toFile: "\(directory)/server.pem", atomically: true, encoding: .utf8)
        try key.privateKeyPEM().write(toFile: "\(directory)/key.pem", atomically: true, encoding: .utf8)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        server.arguments = ["s_server", "-4", "-accept", "127.0.0.1:0", "-naccept", "1", "-cert", "\(directory)/server.pem", "-key", "\(directory)/key.pem"]
        let output = Pipe(), input = Pipe()
        server.standardOutput = output
        // s_server stops at the end of its standard input, so it gets one that stays open until the test ends.
        server.standardInput = input
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            if server.isRunning { server.terminate() }
            try? input.fileHandleForWriting.close()
        }
        // s_server prints `ACCEPT 127.0.0.1:PORT` once it listens.
        var text = ""
        while !(text.contains("ACCEPT") && text.hasSuffix("\n")), let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty {
            text += String(decoding: byte, as: UTF8.self)
        }
        let port = try #require(text.split(separator: "\n").first { $0.hasPrefix("ACCEPT") }?.split(separator: ":").last)
        let client = try openssl([
            "s_client", "-connect", "127.0.0.1:\(port)", "-CAfile", "\(directory)/ca.pem", "-verify_return_error", "-verify_hostname", "payments-db.retail-bank-eu.svc", "-brief",
        ])
        #expect(client.status == 0 && client.output.contains("Verification: OK"), "\(client.output)")
        #expect(client.output.contains("Protocol version: TLSv1.3"), "\(client.output)")
    }

    @Test func theSameRequestAndKeysGiveTheSameCertificate() throws {
        let key = try Ed25519Key(seed: [UInt8](repeating: 2, count: 32))
        #expect(try authority().issue(Self.server, for: key) == (try authority().issue(Self.server, for: key)))
        #expect(try authority().certificatePEM == (try authority().certificatePEM))
        #expect(try key.privateKeyPEM().hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
    }

    @Test(arguments: [
        (["db,IP:1.2.3.4"], [String](), "\"db,IP:1.2.3.4\" is not a host name"),
        ([String](), ["10.0.0.1,DNS:evil"], "\"10.0.0.1,DNS:evil\" is not an IP address"),
    ])
    func aNameThatWouldAddAnEntryIsRefused(_ dnsNames: [String], _ addresses: [String], _ reason: String) throws {
        var request = Self.server
        request.dnsNames = dnsNames
        request.ipAddresses = addresses
        #expect(throws: CryptoError.invalidCertificateRequest(reason)) { try authority().issue(request, for: Ed25519Key(seed: [UInt8](repeating: 2, count: 32))) }
    }

    struct Run {
        var status: Int32
        var output: String
    }

    func openssl(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self))
    }
}
