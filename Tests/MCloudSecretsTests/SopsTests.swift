import Foundation
import MCloudSecrets
import Testing

/// SOPS documents: read back by an independent Python reader written from sops's format, by `SopsDecryptor`, and
/// held to a golden, as rendering must give byte-identical files for the same input.
@Suite struct SopsTests {
    static let secret = KubernetesSecret(
        name: "payments-db-credentials", namespace: "retail-bank-eu",
        stringData: [
            "password": "Q7fWm2xkP9rTz4LbV8nYc3HsJ6dGa1uEq",
            "username": "payments-api",
            "uri": "postgresql://payments-api:Q7fWm2xkP9rTz4LbV8nYc3HsJ6dGa1uEq@payments-db.retail-bank-eu.svc:5432/payments?sslmode=verify-full",
            "empty": "",
        ]
    )
    static let lastModified = Date(timeIntervalSince1970: 1_796_554_800)
    /// A cluster's recipient beside the operator's.
    static let cluster = "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"

    func encrypt(_ secret: KubernetesSecret = Self.secret, at date: Date = Self.lastModified) throws -> String {
        try SopsEncryptor(root: Fixtures.root(), recipients: [AgeRecipient(parsing: Self.cluster)]).encrypt(secret, lastModified: date)
    }

    func pythonDecrypt(_ document: String) throws -> Fixtures.Run {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-sops-\(UUID().uuidString).yaml").path
        try document.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try Fixtures.run("/usr/bin/python3", ["\(Fixtures.directory)/sops_decrypt.py", path, Fixtures.identityFile])
    }

    @Test func anEncryptedSecretDecryptsInAnIndependentSopsReader() throws {
        let run = try pythonDecrypt(try encrypt())
        #expect(run.status == 0, "sops_decrypt.py: \(run.error)")
        let decoded = try JSONSerialization.jsonObject(with: Data(run.output)) as? [String: Any]
        #expect(decoded?["stringData"] as? [String: String] == Self.secret.stringData)
        #expect((decoded?["metadata"] as? [String: String])?["namespace"] == "retail-bank-eu")
    }

    @Test func anAlteredClearFieldFailsTheMACInBothReaders() throws {
        let altered = try encrypt().replacingOccurrences(of: "namespace: retail-bank-eu", with: "namespace: retail-bank-us")
        #expect(altered != (try encrypt()))
        let run = try pythonDecrypt(altered)
        #expect(run.status != 0)
        #expect(run.error.contains("MAC"))
        #expect(throws: SecretsError.sopsFormat(reason: "the MAC does not match the values")) { try SopsDecryptor(identity: Fixtures.identity()).decrypt(altered) }
    }

    @Test func aValueMovedToAnotherKeyDoesNotDecrypt() throws {
        let document = try encrypt()
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let password = try #require(lines.firstIndex { $0.contains("password: ENC[") }), username = try #require(lines.firstIndex { $0.contains("username: ENC[") })
        var swapped = lines
        swapped[password] = lines[password].replacingOccurrences(of: "password:", with: "username:")
        swapped[username] = lines[username].replacingOccurrences(of: "username:", with: "password:")
        // The walk meets the moved password's ciphertext first, now under `username`.
        #expect(throws: SecretsError.sopsFormat(reason: "stringData:username: does not decrypt with the data key")) {
            try SopsDecryptor(identity: Fixtures.identity()).decrypt(swapped.joined(separator: "\n"))
        }
    }

    @Test func theSwiftDecryptorReadsBackWhatWasEncrypted() throws {
        #expect(try SopsDecryptor(identity: Fixtures.identity()).decrypt(encrypt()) == Self.secret)
    }

    @Test func theSameInputGivesTheSameDocumentAndAnotherTimeChangesOnlyTheTimeAndMAC() throws {
        let first = try encrypt()
        #expect(try encrypt() == first)
        let later = try encrypt(at: Self.lastModified.addingTimeInterval(3600))
        let changed = zip(first.split(separator: "\n"), later.split(separator: "\n")).filter { $0 != $1 }.map { String($0.0.prefix(while: { $0 != ":" })) }
        #expect(changed.map { $0.trimmingCharacters(in: .whitespaces) } == ["lastmodified", "mac"])
    }

    @Test func noPlaintextValueAppearsInTheDocument() throws {
        let document = try encrypt()
        for value in Self.secret.stringData.values where !value.isEmpty {
            #expect(!document.contains(value))
        }
    }

    @Test func anInvalidDataKeyIsRefusedBeforeAnythingIsEncrypted() throws {
        let secret = KubernetesSecret(name: "a", namespace: "b", stringData: ["no/slash": "x"])
        #expect(throws: SecretsError.invalidInput(reason: "Secret b/a: \"no/slash\" is not a valid data key ([-._a-zA-Z0-9]+)")) { try encrypt(secret) }
    }

    /// A document the real sops 3.11.0 wrote (`sops -e --age <the fixture recipient> --encrypted-regex
    /// '^(data|stringData)$'`), recorded once: sops is not packaged in Debian 12, so the tests cannot run it.
    @Test func aDocumentWrittenBySopsDecryptsHere() throws {
        let document = try String(contentsOfFile: "\(Fixtures.directory)/written-by-sops-3.11.0.sops.yaml", encoding: .utf8)
        let secret = try SopsDecryptor(identity: Fixtures.identity()).decrypt(document)
        #expect(secret == KubernetesSecret(name: "s", namespace: "n", stringData: ["a": "one", "b": "two"]))
        // The Python reader the other tests rely on reads sops's own output too.
        let run = try pythonDecrypt(document)
        #expect(run.status == 0, "sops_decrypt.py: \(run.error)")
        #expect((try JSONSerialization.jsonObject(with: Data(run.output)) as? [String: Any])?["stringData"] as? [String: String] == ["a": "one", "b": "two"])
    }

    @Test func theEncryptedSecretMatchesItsGolden() throws {
        let path = "\(Fixtures.golden)/payments-db-credentials.sops.yaml"
        let document = try encrypt()
        if ProcessInfo.processInfo.environment["MCLOUD_RECORD_GOLDEN"] == "1" {
            try document.write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(document == (try String(contentsOfFile: path, encoding: .utf8)), "re-record with MCLOUD_RECORD_GOLDEN=1 if the change is intended")
    }
}
