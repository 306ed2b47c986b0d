import Foundation
import MCloudCrypto
import MCloudSecrets
import Testing

/// What a database server and its clients are given: verifiers that match the engines' own formats, credentials
/// derived per edge, and an authority and server certificates that are the same wherever they are derived.
@Suite struct DatabaseAccessSecretsTests {
    struct VerifierCase: Sendable, CustomTestStringConvertible {
        var scheme: PasswordVerifier.Scheme, password: String, salt: String, expected: String
        var testDescription: String { scheme.rawValue }
    }

    /// SCRAM: RFC 7677's user "pencil" and salt, whose ServerKey gives the RFC's server signature
    /// (6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=). MySQL: the hash MySQL's own PASSWORD('password') printed.
    /// Redis and ClickHouse: SHA-256 of "pencil" as `sha256sum` prints it.
    static let verifierCases = [
        VerifierCase(
            scheme: .scramSHA256, password: "pencil", salt: "W22ZaJ0SNY7soEsUEjb6gQ==",
            expected: "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU="
        ),
        VerifierCase(scheme: .redisSHA256, password: "pencil", salt: "", expected: "#13809668fb436386706f67dcb052ed584a04ba16a8c02a17d66d34c30fceda21"),
        VerifierCase(scheme: .mysqlNative, password: "password", salt: "", expected: "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19"),
        VerifierCase(scheme: .sha256Hex, password: "pencil", salt: "", expected: "13809668fb436386706f67dcb052ed584a04ba16a8c02a17d66d34c30fceda21"),
    ]

    @Test(arguments: verifierCases) func eachVerifierMatchesItsEnginesKnownValue(_ vector: VerifierCase) throws {
        let salt = try #require(Data(base64Encoded: vector.salt)).map { $0 }
        #expect(try PasswordVerifier.verifier(vector.scheme, password: vector.password, salt: salt) == vector.expected)
    }

    /// The SCRAM verifier's ServerKey reproduces RFC 7677's server signature over the RFC's AuthMessage, the value a
    /// server proves itself with: so StoredKey and ServerKey are computed as the RFC means, not only self-consistently.
    @Test func theSCRAMServerKeySignsRFC7677sExchange() throws {
        let verifier = try PasswordVerifier.verifier(.scramSHA256, password: "pencil", salt: [UInt8](try #require(Data(base64Encoded: "W22ZaJ0SNY7soEsUEjb6gQ=="))))
        let serverKey = try #require(verifier.split(separator: ":").last.flatMap { Data(base64Encoded: String($0)) })
        let authMessage =
            "n=user,r=rOprNGfwEbeRWgbNEkqO,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
        let signature = HMAC.sha256(key: [UInt8](serverKey), message: Array(authMessage.utf8))
        #expect(Data(signature).base64EncodedString() == "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
    }

    static let edges = [("payments-db@eu", "payments-api"), ("payments-db@eu", "ledger"), ("ledger-db@eu", "payments-api"), ("ledger-db@eu", "ledger")]

    @Test func everyEdgeGetsItsOwnPasswordAndSaltAndTheSameOnesAgain() throws {
        let root = try Fixtures.root()
        var passwords: Set<String> = []
        var verifiers: Set<String> = []
        for (cell, service) in Self.edges {
            let credential = try ClientCredential(root: root, application: "retail-bank", cell: cell, service: service)
            let again = try ClientCredential(root: Fixtures.root(), application: "retail-bank", cell: cell, service: service)
            #expect(again.password == credential.password)
            #expect(try again.verifier(.scramSHA256) == credential.verifier(.scramSHA256))
            passwords.insert(credential.password.value)
            verifiers.insert(try credential.verifier(.scramSHA256))
            for scheme in PasswordVerifier.Scheme.allCases {
                #expect(!(try credential.verifier(scheme)).contains(credential.password.value), "\(scheme) holds the password")
            }
        }
        #expect(passwords.count == Self.edges.count)
        #expect(verifiers.count == Self.edges.count)
        let rotated = try ClientCredential(root: root, application: "retail-bank", cell: "payments-db@eu", service: "payments-api", generation: 2)
        #expect(!passwords.contains(rotated.password.value))
    }

    @Test func theAuthorityAndServerCertificateAreByteIdenticalFromTheSameRoot() throws {
        let names = ["payments-db.retail-bank-eu.svc", "payments-db.retail-bank-eu.svc.cluster.local"]
        func derive() throws -> (String, ServerCertificate) {
            let root = try Fixtures.root()
            let authority = try ApplicationCA.derive(root: root, application: "retail-bank")
            return (
                authority.certificatePEM,
                try ServerCertificate(root: root, authority: authority, application: "retail-bank", cell: "payments-db@eu", dnsNames: names, ipAddresses: ["10.0.0.5"])
            )
        }
        let (authority, server) = try derive()
        let (authorityAgain, serverAgain) = try derive()
        #expect(authority == authorityAgain)
        #expect(server.certificatePEM == serverAgain.certificatePEM)
        #expect(server.privateKeyPEM == serverAgain.privateKeyPEM)
        #expect(try ApplicationCA.derive(root: Fixtures.root(), application: "other-app").certificatePEM != authority)
        #expect(try ApplicationCA.derive(root: Fixtures.root(), application: "retail-bank", generation: 2).certificatePEM != authority)
    }

    @Test func theServerCertificateVerifiesAgainstTheApplicationsAuthorityForItsNames() throws {
        let root = try Fixtures.root()
        let authority = try ApplicationCA.derive(root: root, application: "retail-bank")
        let server = try ServerCertificate(
            root: root, authority: authority, application: "retail-bank", cell: "payments-db@eu",
            dnsNames: ["payments-db.retail-bank-eu.svc", "payments-db.retail-bank-eu.svc.cluster.local", "retail-bank-payments-db-eu-0"],
            ipAddresses: ["10.0.0.5"]
        )
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-access-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try authority.certificatePEM.write(toFile: "\(directory)/ca.crt", atomically: true, encoding: .utf8)
        try server.certificatePEM.write(toFile: "\(directory)/server.crt", atomically: true, encoding: .utf8)
        for (host, valid) in [("payments-db.retail-bank-eu.svc.cluster.local", true), ("ledger-db.retail-bank-eu.svc", false)] {
            let run = try Fixtures.run(
                "/usr/bin/openssl", ["verify", "-CAfile", "\(directory)/ca.crt", "-purpose", "sslserver", "-verify_hostname", host, "\(directory)/server.crt"]
            )
            #expect((run.status == 0) == valid, "\(host): \(run.error)")
        }
        #expect(server.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
    }
}
