import MCloudCrypto
import Testing

/// The published test vectors of each primitive, so a wrong binding (argument order, lengths) cannot pass.
@Suite struct KnownAnswerTests {
    struct HKDFCase: Sendable, CustomTestStringConvertible {
        var name: String, secret: String, salt: String, info: String, count: Int, expected: String
        var testDescription: String { name }
    }

    static let hkdfCases = [
        HKDFCase(
            name: "RFC 5869 A.1", secret: String(repeating: "0b", count: 22), salt: "000102030405060708090a0b0c", info: "f0f1f2f3f4f5f6f7f8f9",
            count: 42, expected: "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
        ),
        HKDFCase(
            name: "RFC 5869 A.3 (no salt, no info)", secret: String(repeating: "0b", count: 22), salt: "", info: "", count: 42,
            expected: "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"
        ),
    ]

    @Test(arguments: hkdfCases) func hkdfGivesTheRFCsOutput(_ vector: HKDFCase) throws {
        let output = try HKDF.sha256(secret: hex(vector.secret), salt: hex(vector.salt), info: hex(vector.info), count: vector.count)
        #expect(output == hex(vector.expected))
    }

    @Test func hkdfRefusesMoreThan255Blocks() {
        #expect(throws: CryptoError.outputTooLong(requested: HKDF.maximumCount + 1, limit: HKDF.maximumCount)) {
            try HKDF.sha256(secret: [1], salt: [UInt8](), info: [UInt8](), count: HKDF.maximumCount + 1)
        }
    }

    @Test func x25519GivesRFC7748sKeysAndSharedSecret() throws {
        let alice = hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
        let bob = hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
        #expect(try X25519.publicKey(privateKey: alice) == hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"))
        #expect(try X25519.publicKey(privateKey: bob) == hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"))
        let shared = hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
        #expect(try X25519.sharedSecret(privateKey: alice, publicKey: X25519.publicKey(privateKey: bob)) == shared)
        #expect(try X25519.sharedSecret(privateKey: bob, publicKey: X25519.publicKey(privateKey: alice)) == shared)
    }

    @Test func x25519RefusesASmallOrderPeer() {
        let alice = hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
        #expect(throws: CryptoError.lowOrderPoint) { try X25519.sharedSecret(privateKey: alice, publicKey: [UInt8](repeating: 0, count: 32)) }
    }

    static let sunscreen = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)

    @Test func chaCha20Poly1305SealsRFC8439sExampleAndOpensIt() throws {
        let key = Array(UInt8(0x80)...UInt8(0x9f)), nonce = hex("070000004041424344454647"), aad = hex("50515253c0c1c2c3c4c5c6c7")
        let expected = hex(
            "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116"
                + "1ae10b594f09e26a7e902ecbd0600691"
        )
        let sealed = try AEAD.chaCha20Poly1305.seal(Self.sunscreen, key: key, nonce: nonce, authenticating: aad)
        #expect(sealed == expected)
        #expect(try AEAD.chaCha20Poly1305.open(sealed, key: key, nonce: nonce, authenticating: aad) == Self.sunscreen)
        var altered = sealed
        altered[0] ^= 1
        #expect(throws: CryptoError.authenticationFailed) { try AEAD.chaCha20Poly1305.open(altered, key: key, nonce: nonce, authenticating: aad) }
        #expect(throws: CryptoError.authenticationFailed) { try AEAD.chaCha20Poly1305.open(sealed, key: key, nonce: nonce, authenticating: [1]) }
    }

    @Test func aesGCMSealsTheGCMSpecsTestCase16() throws {
        let key = hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"), nonce = hex("cafebabefacedbaddecaf888")
        let plaintext = hex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
        let aad = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let expected = hex(
            "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
                + "76fc6ece0f4e1768cddf8853bb2d551b"
        )
        let sealed = try AEAD.aes256GCM.seal(plaintext, key: key, nonce: nonce, authenticating: aad)
        #expect(sealed == expected)
        #expect(try AEAD.aes256GCM.open(sealed, key: key, nonce: nonce, authenticating: aad) == plaintext)
    }

    /// SOPS's 32-byte nonce; the answer is python3-cryptography's (`AESGCM(bytes(range(32))).encrypt(...)`).
    @Test func aesGCMWithSOPSs32ByteNonceMatchesPythonCryptography() throws {
        let key = Array(UInt8(0)..<32), nonce = Array(UInt8(100)..<132)
        let sealed = try AEAD.aes256GCM.seal(Array("hunter2".utf8), key: key, nonce: nonce, authenticating: Array("stringData:password:".utf8))
        #expect(sealed == hex("a234bdb32d6cc126600b4b20aa08170a47092ddf387291"))
    }

    @Test func aWrongSizedKeyOrNonceIsRefusedByName() {
        #expect(throws: CryptoError.invalidLength(what: "ChaCha20-Poly1305 nonce", expected: 12, actual: 8)) {
            try AEAD.chaCha20Poly1305.seal([1], key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 8))
        }
        #expect(throws: CryptoError.invalidLength(what: "AES-256-GCM key", expected: 32, actual: 16)) {
            try AEAD.aes256GCM.seal([1], key: [UInt8](repeating: 0, count: 16), nonce: [UInt8](repeating: 0, count: 12))
        }
    }

    @Test func emptyPlaintextSealsToTheTagAlone() throws {
        let key = [UInt8](repeating: 7, count: 32), nonce = [UInt8](repeating: 0, count: 12)
        let sealed = try AEAD.chaCha20Poly1305.seal([UInt8](), key: key, nonce: nonce)
        #expect(sealed.count == AEAD.tagCount)
        #expect(try AEAD.chaCha20Poly1305.open(sealed, key: key, nonce: nonce) == [])
    }

    @Test func digestsGiveTheirStandardsValues() throws {
        #expect(SHA2.sha256([UInt8]()) == hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
        #expect(
            SHA2.sha512(Array("abc".utf8))
                == hex("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        )
        #expect(try SecureRandom.bytes(16).count == 16)
    }

    /// The PBKDF2-HMAC-SHA256 answers published with RFC 7914's test vectors and in wide use since (one iteration, and
    /// 4096 as SCRAM-SHA-256 uses).
    @Test(arguments: [
        (1, "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"),
        (4096, "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"),
    ])
    func pbkdf2GivesTheKnownOutput(_ iterations: Int, _ expected: String) throws {
        #expect(try PBKDF2.sha256(password: Array("password".utf8), salt: Array("salt".utf8), iterations: iterations, count: 32) == hex(expected))
    }

    @Test func pbkdf2RefusesZeroIterations() {
        #expect(throws: CryptoError.self) { try PBKDF2.sha256(password: [1], salt: [2], iterations: 0, count: 32) }
    }

    /// FIPS 180-2, appendix A.1: "abc".
    @Test func sha1GivesTheFIPSOutput() {
        #expect(SHA1.hash(Array("abc".utf8)) == hex("a9993e364706816aba3e25717850c26c9cd0d89d"))
    }
}
