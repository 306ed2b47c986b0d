import MCloudSecrets
import Testing

/// Files this module writes open with Debian's age, and files age writes open here.
@Suite struct AgeInteropTests {
    static let plaintexts: [(name: String, bytes: [UInt8])] = [
        ("empty", []),
        ("short", Array("postgresql://payments:secret@payments-db/payments".utf8)),
        ("exactly one chunk", (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31) }),
        ("two chunks and a bit", (0..<140_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }),
    ]

    @Test(arguments: [true, false], 0..<plaintexts.count)
    func aFileEncryptedHereDecryptsWithAge(armored: Bool, index: Int) throws {
        let plaintext = Self.plaintexts[index].bytes
        let other = try AgeRecipient(parsing: "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p")
        let file = try AgeEncryptor(root: Fixtures.root()).encrypt(plaintext, to: [Fixtures.identity().recipient, other], armored: armored)
        let run = try Fixtures.run("/usr/bin/age", ["-d", "-i", Fixtures.identityFile], input: file)
        #expect(run.status == 0, "age -d: \(run.error)")
        #expect(run.output == plaintext, "\(Self.plaintexts[index].name)")
    }

    @Test(arguments: [true, false], 0..<plaintexts.count)
    func aFileAgeEncryptedDecryptsHere(armored: Bool, index: Int) throws {
        let plaintext = Self.plaintexts[index].bytes
        let run = try Fixtures.run("/usr/bin/age", ["-e", "-r", Fixtures.recipientText] + (armored ? ["-a"] : []), input: plaintext)
        #expect(run.status == 0, "age -e: \(run.error)")
        #expect(try AgeDecryptor(identity: Fixtures.identity()).decrypt(run.output) == plaintext, "\(Self.plaintexts[index].name)")
    }

    @Test func theSameInputsEncryptToTheSameBytesAndAnotherPlaintextToOthers() throws {
        let encryptor = AgeEncryptor(root: try Fixtures.root())
        let recipient = try Fixtures.identity().recipient
        let first = try encryptor.encrypt(Array("a".utf8), to: [recipient])
        #expect(try encryptor.encrypt(Array("a".utf8), to: [recipient]) == first)
        #expect(try encryptor.encrypt(Array("b".utf8), to: [recipient]) != first)
    }

    @Test func anotherIdentityCannotDecrypt() throws {
        let file = try AgeEncryptor(root: Fixtures.root()).encrypt(Array("x".utf8), to: [Fixtures.identity().recipient])
        let stranger = try AgeIdentity(secretKey: [UInt8](repeating: 9, count: 32))
        #expect(throws: SecretsError.noMatchingIdentity) { try AgeDecryptor(identity: stranger).decrypt(file) }
    }

    @Test func anAlteredPayloadIsRefused() throws {
        var file = try AgeEncryptor(root: Fixtures.root()).encrypt(Array("payload".utf8), to: [Fixtures.identity().recipient], armored: false)
        file[file.count - 1] ^= 1
        #expect(throws: SecretsError.ageFormat(reason: "payload chunk 0 does not authenticate")) { try AgeDecryptor(identity: Fixtures.identity()).decrypt(file) }
    }
}
