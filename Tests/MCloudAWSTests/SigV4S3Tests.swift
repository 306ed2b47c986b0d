import MCloudHTTP
import MCloudCrypto
import Testing
@testable import MCloudAWS

/// The S3 rules the official suite does not cover: the path signed as sent, the payload hash header, UNSIGNED-PAYLOAD.
struct SigV4S3Tests {
    static let request = HTTPRequest(method: .PUT, url: "https://s3.amazonaws.com/bucket/a%20b/./c", body: Array("hello".utf8))

    @Test("S3 signs the path exactly as sent; other services normalise it and encode it once more", arguments: [
        (SigV4Signer.Options.s3, "/bucket/a%20b/./c"),
        (SigV4Signer.Options.standard, "/bucket/a%2520b/c"),
    ])
    func path(_ options: SigV4Signer.Options, _ expected: String) {
        let signer = SigV4Signer(credentials: TestConfiguration.credentials, region: "us-east-1", service: "s3", options: options)
        let lines = signer.sign(Self.request, at: TestConfiguration.date).canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[1] == expected)
    }

    @Test("S3 sends and signs x-amz-content-sha256 with the body's hash, or UNSIGNED-PAYLOAD when asked")
    func payload() {
        let hash = Hex.lowercase(SHA2.sha256(Array("hello".utf8)))
        for (options, expected) in [(SigV4Signer.Options.s3, hash), (SigV4Signer.Options(normalizePath: false, encodePath: false, payloadHashHeader: true, unsignedPayload: true), "UNSIGNED-PAYLOAD")] {
            let signed = SigV4Signer(credentials: TestConfiguration.credentials, region: "us-east-1", service: "s3", options: options).sign(Self.request, at: TestConfiguration.date)
            #expect(signed.request.header("x-amz-content-sha256") == expected)
            #expect(signed.canonicalRequest.hasSuffix("\nhost;x-amz-content-sha256;x-amz-date\n\(expected)"))
        }
    }

    @Test("a session token is sent and signed in both modes")
    func sessionToken() {
        var credentials = TestConfiguration.credentials
        credentials.sessionToken = "token/with+chars"
        let signer = SigV4Signer(credentials: credentials, region: "eu-west-1", service: "s3", options: .s3)
        let header = signer.sign(HTTPRequest(method: .GET, url: "https://s3.eu-west-1.amazonaws.com/b"), at: TestConfiguration.date)
        #expect(header.request.header("x-amz-security-token") == "token/with+chars")
        #expect(header.canonicalRequest.contains("x-amz-security-token:token/with+chars\n"))
        let query = signer.presign(HTTPRequest(method: .GET, url: "https://s3.eu-west-1.amazonaws.com/b/k"), at: TestConfiguration.date, expires: 300)
        #expect(query.request.url.contains("&X-Amz-Security-Token=token%2Fwith%2Bchars&X-Amz-Signature="))
        #expect(query.canonicalRequest.contains("X-Amz-Security-Token=token%2Fwith%2Bchars"))
    }
}
