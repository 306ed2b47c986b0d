import MCloudCrypto
import Testing

@Suite struct DigestTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var message: String
        var sha256: String
        var testDescription: String { "sha256(\"\(message.prefix(20))\")" }
    }

    // FIPS 180-2 examples.
    @Test(arguments: [
        Vector(message: "", sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        Vector(message: "abc", sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        Vector(message: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", sha256: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256MatchesTheStandardVectors(_ vector: Vector) {
        #expect(Hex.lowercase(SHA2.sha256(Array(vector.message.utf8))) == vector.sha256)
    }

    // RFC 1321, appendix A.5.
    @Test(arguments: [("", "d41d8cd98f00b204e9800998ecf8427e"), ("abc", "900150983cd24fb0d6963f7d28e17f72")])
    func md5MatchesRFC1321(_ message: String, _ expected: String) {
        #expect(Hex.lowercase(MD5.digest(Array(message.utf8))) == expected)
    }

    // RFC 4231, test cases 1 and 2.
    @Test func hmacSHA256MatchesRFC4231() {
        let key1 = [UInt8](repeating: 0x0b, count: 20)
        #expect(Hex.lowercase(HMAC.sha256(key: key1, message: Array("Hi There".utf8)))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(Hex.lowercase(HMAC.sha256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }


    @Test func hexIsLowerOrUpperCaseAsAsked() {
        #expect(Hex.lowercase([0x00, 0xAB, 0x7F]) == "00ab7f")
        #expect(Hex.uppercase([0x00, 0xAB, 0x7F]) == "00AB7F")
    }
}
