import Foundation
import MCloudCrypto
import MCloudSecrets
import Testing

/// Passwords derived from the root: reproducible, distinct per purpose, and the key file's failures typed and
/// free of the key's text.
@Suite struct DerivationTests {
    static let purpose = SecretPurpose(application: "retail-bank", cell: "payments-db@eu", service: "payments-api", kind: .password, generation: 1)

    @Test func theRecordedIdentityGivesItsRecordedRecipientAndRoundTrips() throws {
        let identity = try AgeIdentity(parsing: Fixtures.identityText)
        #expect(identity.recipient.encoded == Fixtures.recipientText)
        #expect(identity.encoded == Fixtures.identityText)
        #expect(try AgeRecipient(parsing: Fixtures.recipientText).encoded == Fixtures.recipientText)
        #expect(try Fixtures.identity() == identity)
    }

    @Test(arguments: [
        "AGE1R4727E6QA50D0XK0NPW28A2EER4FEDPEW6J5UJRHFA4D25TFPUSSJHMF9W",  // uppercase
        "age1r4727e6qa50d0xk0npw28a2eer4fedpew6j5ujrhfa4d25tfpussjhmf9q",  // checksum
        "age1qyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqsnp5j5s",  // not 32 bytes
    ])
    func aMalformedRecipientIsRefused(_ text: String) {
        #expect(throws: SecretsError.malformedRecipient(text)) { try AgeRecipient(parsing: text) }
    }

    /// An identity pasted where a recipient belongs is refused without being echoed into an error or a log.
    @Test(arguments: [Fixtures.identityText, Fixtures.identityText.lowercased()])
    func anIdentityGivenAsARecipientIsNotRepeated(_ text: String) {
        #expect(throws: SecretsError.malformedRecipient("(a value not starting with age1, not shown)")) { try AgeRecipient(parsing: text) }
    }

    @Test func theSameRootAndPurposeGiveTheSamePassword() throws {
        let first = try GeneratedPassword(root: Fixtures.root(), purpose: Self.purpose)
        #expect(try GeneratedPassword(root: Fixtures.root(), purpose: Self.purpose) == first)
    }

    /// The scheme's known answer: a change here changes every deployed password, so it must be deliberate (a new
    /// salt version in SecretRoot, and a rotation of every secret). Recorded from `Fixtures/derive_password.py`.
    @Test func theFixtureRootGivesItsRecordedPassword() throws {
        #expect(try GeneratedPassword(root: Fixtures.root(), purpose: Self.purpose).value == "iM2W498JL4Xp9ycjYb2wzdjgYgtcBfydf")
    }

    /// An archive's cipher pass is re-derived after the primary's cloud is lost, so its known answer is as binding
    /// as a password's: a change here locks every archive. Recorded from `Fixtures/derive_password.py`.
    @Test func theFixtureRootGivesItsRecordedArchiveCipherPass() throws {
        let purpose = SecretPurpose(application: "retail-bank", cell: "payments-db", service: "dr/retail-bank-dr", kind: .archiveCipher, generation: 1)
        #expect(try GeneratedPassword(root: Fixtures.root(), purpose: purpose).value == "lnKfWX4zuCPzaKMXN9ucY9AWPJSIJlhvL")
    }

    /// The derivation written again in Python from docs/connectivity.md agrees on every purpose of the table below.
    @Test(arguments: 0..<changes.count) func anIndependentPythonDerivationGivesTheSamePassword(_ index: Int) throws {
        let purpose = Self.changes[index].1
        let run = try Fixtures.run(
            "/usr/bin/python3",
            ["\(Fixtures.directory)/derive_password.py", Fixtures.identityFile, purpose.application, purpose.cell, purpose.service, purpose.kind.rawValue, String(purpose.generation)]
        )
        #expect(run.status == 0, "derive_password.py: \(run.error)")
        #expect(String(decoding: run.output, as: UTF8.self) == (try GeneratedPassword(root: Fixtures.root(), purpose: purpose).value) + "\n")
    }

    static let changes: [(String, SecretPurpose)] = [
        ("application", SecretPurpose(application: "retail-bank2", cell: "payments-db@eu", service: "payments-api", kind: .password, generation: 1)),
        ("cell", SecretPurpose(application: "retail-bank", cell: "payments-db@us", service: "payments-api", kind: .password, generation: 1)),
        ("service", SecretPurpose(application: "retail-bank", cell: "payments-db@eu", service: "ledger", kind: .password, generation: 1)),
        ("generation", SecretPurpose(application: "retail-bank", cell: "payments-db@eu", service: "payments-api", kind: .password, generation: 2)),
        ("kind", SecretPurpose(application: "retail-bank", cell: "payments-db@eu", service: "payments-api", kind: .archiveCipher, generation: 1)),
        ("archive", SecretPurpose(application: "retail-bank", cell: "payments-db", service: "dr/retail-bank-dr", kind: .archiveCipher, generation: 1)),
        // Fields run together differently must not give the same derivation.
        ("boundary", SecretPurpose(application: "retail-bankp", cell: "ayments-db@eu", service: "payments-api", kind: .password, generation: 1)),
    ]

    @Test(arguments: 0..<changes.count) func anyFieldChangedGivesAnotherPassword(_ index: Int) throws {
        let root = try Fixtures.root()
        let changed = try GeneratedPassword(root: root, purpose: Self.changes[index].1)
        #expect(changed.value != (try GeneratedPassword(root: root, purpose: Self.purpose).value), "\(Self.changes[index].0)")
    }

    @Test func anotherRootGivesAnotherPassword() throws {
        let other = SecretRoot(identity: try AgeIdentity(secretKey: [UInt8](repeating: 3, count: 32)))
        #expect(try GeneratedPassword(root: other, purpose: Self.purpose) != (try GeneratedPassword(root: Fixtures.root(), purpose: Self.purpose)))
    }

    @Test func aPasswordHas192BitsInLettersAndDigitsAndPrintsNoValue() throws {
        let password = try GeneratedPassword(root: Fixtures.root(), purpose: Self.purpose)
        #expect(password.value.count == GeneratedPassword.length)
        #expect(Double(GeneratedPassword.length) * log2(62) >= 192)
        #expect(password.value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        #expect(!"\(password)".contains(password.value))
        #expect(!"\(try Fixtures.identity())".contains(Fixtures.identityText))
    }

    func keyFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-age-\(UUID().uuidString).key").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aMalformedKeyFileIsATypedErrorNamingTheFileButNotTheKey() throws {
        // One character of the real key changed: the checksum fails.
        let broken = String(Fixtures.identityText.dropLast()) + "Q"
        let path = try keyFile("# public key: \(Fixtures.recipientText)\n\(broken)\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let expected = SecretsError.keyFileMalformed(path: path, reason: "has on line 2 something that is not an age identity (AGE-SECRET-KEY-1...)")
        #expect(throws: expected) { try AgeKeyFile.load(path: path) }
        #expect(expected.description.contains(path))
        #expect(!expected.description.contains(broken))
        #expect(!expected.description.contains(String(broken.dropFirst(16).prefix(20))))
    }

    @Test func aKeyFileWithTwoIdentitiesOrNoneIsRefused() throws {
        let other = try AgeIdentity(secretKey: [UInt8](repeating: 5, count: 32)).encoded
        for (text, count) in [("\(Fixtures.identityText)\n\(other)\n", 2), ("# nothing\n", 0)] {
            let path = try keyFile(text)
            defer { try? FileManager.default.removeItem(atPath: path) }
            #expect(throws: SecretsError.keyFileMalformed(path: path, reason: "holds \(count) age identities; mcloud derives its secrets from exactly one")) {
                try AgeKeyFile.load(path: path)
            }
        }
    }

    @Test func aMissingKeyFileIsNamed() {
        #expect(throws: SecretsError.keyFileMissing(path: "/nonexistent/age.key")) { try AgeKeyFile.load(path: "/nonexistent/age.key") }
    }

    @Test(arguments: [
        (["MCLOUD_AGE_KEY_FILE": "/a", "SOPS_AGE_KEY_FILE": "/b", "HOME": "/h"], "/a"),
        (["SOPS_AGE_KEY_FILE": "/b", "HOME": "/h"], "/b"),
        (["MCLOUD_AGE_KEY_FILE": "", "HOME": "/h"], "/h/.config/mcloud/age.key"),
    ])
    func theKeyFileIsFoundByMCloudsVariableThenSOPSsThenTheDefault(_ environment: [String: String], _ expected: String) {
        #expect(AgeKeyFile.path(environment: environment) == expected)
    }
}

extension DerivationTests {
    /// A certificate authority's key derived from the root is the same each time, and another kind gives another key.
    @Test func keyMaterialIsReproducibleAndDistinctPerKind() throws {
        let root = try Fixtures.root()
        var purpose = Self.purpose
        purpose.kind = .certificateKey
        let seed = try root.keyMaterial(for: purpose)
        #expect(seed.count == 32)
        #expect(try root.keyMaterial(for: purpose) == seed)
        #expect(try Ed25519Key(seed: seed).publicKey == (try Ed25519Key(seed: root.keyMaterial(for: purpose)).publicKey))
        #expect(try root.keyMaterial(for: Self.purpose) != seed)
    }
}
