import Foundation
import MCloudCrypto
import MCloudSecrets
import Testing

/// A DR leg's dump identity (`SecretPurpose.Kind.dumpIdentity`): age's Bech32 and X25519 as age-keygen computes
/// them, and the derivation's known answers, which are as binding as the archive pass's: a change here leaves every
/// encrypted dump in every leg without a key.
@Suite struct DumpIdentityTests {
    struct Encoding: Sendable, CustomStringConvertible {
        var secretKey: String
        var identity: String
        var recipient: String
        var description: String { String(secretKey.prefix(8)) }
    }

    /// Secret keys, their identities in age's Bech32 and the recipients `age-keygen -y` printed for them.
    static let encodings: [Encoding] = [
        .init(
            secretKey: "0000000000000000000000000000000000000000000000000000000000000000",
            identity: "AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ8H00W3",
            recipient: "age19ljhmg68e43yx9fgm2k9lwefquc0la5y4lzvlshdjzv47kxt8d6qr9vf4p"
        ),
        .init(
            secretKey: "2323232323232323232323232323232323232323232323232323232323232323",
            identity: "AGE-SECRET-KEY-1YV3JXGERYV3JXGERYV3JXGERYV3JXGERYV3JXGERYV3JXGERYV3S2YYDT3",
            recipient: "age1nfzs82v2ky873565e8zze0gvn4u5fafw052d36jewa08mj0rha9sk23j0a"
        ),
        .init(
            secretKey: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            identity: "AGE-SECRET-KEY-1QQQSYQCYQ5RQWZQFPG9SCRGWPUGPZYSNZS23V9CCRYDPK8QARC0SWRYDWG",
            recipient: "age13aqvttdk3ujkyjh9kg2w5an6dmy5mq5a84a4uxk3hfhnugfc9p0sy5p2wh"
        ),
        .init(
            secretKey: "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
            identity: "AGE-SECRET-KEY-1LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLS9FV78X",
            recipient: "age1s37q6tph2g60xe0xvz24rparwddq7asn69sf6wn2fkx98t42tg3qvgcz2x"
        ),
    ]

    @Test(arguments: encodings)
    func aSecretKeyEncodesAndGivesTheRecipientAgeKeygenPrinted(_ known: Encoding) throws {
        let digits = Array(known.secretKey.utf8)
        let bytes = try stride(from: 0, to: digits.count, by: 2).map { try #require(UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)) }
        let identity = try AgeIdentity(secretKey: bytes)
        #expect(Hex.lowercase(bytes) == known.secretKey)
        #expect(identity.encoded == known.identity)
        #expect(identity.recipient.encoded == known.recipient)
        #expect(try AgeIdentity(parsing: known.identity) == identity)
        #expect(try AgeRecipient(parsing: known.recipient) == identity.recipient)
    }

    struct Derived: Sendable, CustomStringConvertible {
        var purpose: SecretPurpose
        var identity: String
        var recipient: String
        var description: String { "\(purpose.cell) \(purpose.service) g\(purpose.generation)" }
    }

    /// Recorded from the derivation written again in Python (`Fixtures/derive_password.py`'s HKDF and labels, domain
    /// `mcloud/v1/key`) and `age-keygen -y`, for the fixture's identity.
    static let derivations: [Derived] = [
        .init(
            purpose: SecretPurpose(application: "retail-bank", cell: "payments-db.0", service: "dr/retail-bank-dr", kind: .dumpIdentity, generation: 1),
            identity: "AGE-SECRET-KEY-1G5HLZKGQX93A4272AHQC7TLA8LG4Z5ZHKEPRPF38P28ZYEQKCFSSPNWN8E",
            recipient: "age164jcz4tuqmxp7ka5q3y579d4yjph64jhw7u04hzmmeca26etnezsw74vf4"
        ),
        .init(
            purpose: SecretPurpose(application: "retail-bank", cell: "payments-db.0", service: "dr/retail-bank-dr", kind: .dumpIdentity, generation: 2),
            identity: "AGE-SECRET-KEY-12RE7PFQMA72EXTTSZL4T600EUXS0AH8HCYLJ8H0TV49GC6YA7PVQZ8HWAR",
            recipient: "age180xrrzj97zd74dytwq3p68jruh7q69ckd8pdly2en62xsmnxlspqsxcdyf"
        ),
        .init(
            purpose: SecretPurpose(application: "shop", cell: "shop.cache.0", service: "dr/mcloud-shop-cache", kind: .dumpIdentity, generation: 1),
            identity: "AGE-SECRET-KEY-1LUJJZLMHW5FQMMVRG9HDFMSK8X8YHT24KVCC9CC8EPWU5D2TV6GQ5JLLH9",
            recipient: "age1vkn8lw6872xc9vske7qcrjr7rkau7zjty2ehy3xjay8s540zqu5qphgs25"
        ),
    ]

    @Test(arguments: derivations)
    func theFixtureRootGivesTheRecordedDumpIdentity(_ known: Derived) throws {
        let identity = try AgeIdentity(root: Fixtures.root(), purpose: known.purpose)
        #expect(identity.encoded == known.identity)
        #expect(identity.recipient.encoded == known.recipient)
    }

    /// The recipient computed in Swift is the one the real age computes from the key file the restoring server gets.
    @Test(arguments: derivations)
    func ageKeygenComputesTheSameRecipientFromTheKeyFile(_ known: Derived) throws {
        let identity = try AgeIdentity(root: Fixtures.root(), purpose: known.purpose)
        let run = try Fixtures.run("/usr/bin/age-keygen", ["-y"], input: Array(identity.keyFile.utf8))
        #expect(run.status == 0, "age-keygen -y: \(run.error)")
        #expect(String(decoding: run.output, as: UTF8.self) == identity.recipient.encoded + "\n")
    }

    /// What the VM does: `age -r` to the recipient, `age -d -i` with the key file; another leg's identity fails.
    @Test func theRealAgeEncryptsToTheRecipientAndOnlyTheLegsIdentityDecrypts() throws {
        let identity = try AgeIdentity(root: Fixtures.root(), purpose: Self.derivations[0].purpose)
        let other = try AgeIdentity(root: Fixtures.root(), purpose: Self.derivations[2].purpose)
        let dump = Array("a dump's rows\n".utf8)
        let encrypted = try Fixtures.run("/usr/bin/age", ["-r", identity.recipient.encoded], input: dump)
        #expect(encrypted.status == 0 && encrypted.output.starts(with: Array("age-encryption.org/v1\n".utf8)), "age -r: \(encrypted.error)")
        let folder = NSTemporaryDirectory() + "mcloud-dump-identity-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(identity.keyFile.utf8).write(to: URL(fileURLWithPath: "\(folder)/right.key"))
        try Data(other.keyFile.utf8).write(to: URL(fileURLWithPath: "\(folder)/wrong.key"))
        let decrypted = try Fixtures.run("/usr/bin/age", ["-d", "-i", "\(folder)/right.key"], input: encrypted.output)
        #expect(decrypted.status == 0 && decrypted.output == dump, "age -d: \(decrypted.error)")
        let refused = try Fixtures.run("/usr/bin/age", ["-d", "-i", "\(folder)/wrong.key"], input: encrypted.output)
        #expect(refused.status != 0 && refused.error.contains("no identity matched any of the recipients"), "\(refused.error)")
    }

    /// Each leg, server and generation has its own identity, and none is the operator's own.
    @Test func everyFieldOfTheDumpPurposeGivesAnotherIdentity() throws {
        let recipients = try Self.derivations.map { try AgeIdentity(root: Fixtures.root(), purpose: $0.purpose).recipient }
        #expect(Set(recipients).count == recipients.count)
        #expect(!recipients.contains(try Fixtures.identity().recipient))
        let archive = SecretPurpose(application: "retail-bank", cell: "payments-db.0", service: "dr/retail-bank-dr", kind: .archiveCipher, generation: 1)
        #expect(try AgeIdentity(root: Fixtures.root(), purpose: archive).recipient != recipients[0])
    }

    /// The key file names only the recipient besides the identity, and the identity's description shows no key.
    @Test func theKeyFileIsWhatAgeKeygenWritesAndTheDescriptionHidesTheKey() throws {
        let identity = try AgeIdentity(root: Fixtures.root(), purpose: Self.derivations[0].purpose)
        #expect(identity.keyFile == "# public key: \(Self.derivations[0].recipient)\n\(Self.derivations[0].identity)\n")
        #expect(try AgeKeyFile.identity(in: identity.keyFile, path: "restore.key") == identity)
        #expect(!"\(identity)".contains("AGE-SECRET-KEY"))
    }
}
