import Foundation
import Testing
import MCloudHTTP

/// What leaves mcloud is what was meant: a header value never starts a header of its own, and a path is sent as it
/// was signed (docs/security.md, "Low: headers and paths").
@Suite struct RequestSafetyTests {
    @Test(arguments: [
        ("X-Amz-Meta-Note", "fine\r\nX-Injected: yes"),
        ("X-Amz-Meta-Note", "fine\nX-Injected: yes"),
        ("X-Amz-Meta-Note", "cut\u{0}short"),
        ("X-Injected: yes\r\nX-Amz-Meta-Note", "fine"),
    ])
    func aHeaderWithALineBreakOrNulIsRefusedBeforeAnythingIsSent(name: String, value: String) async throws {
        let server = try TestServer()
        let request = HTTPRequest(method: .GET, url: "http://127.0.0.1:\(server.port)/echo", headers: [(name, value)])
        await #expect {
            try await CurlTransport().send(request)
        } throws: { error in
            guard case .invalidRequest(let detail) = error as? HTTPError else { return false }
            return detail.contains("CR, LF or NUL") && !detail.contains("fine")
        }
    }

    @Test func aPathWithDotSegmentsIsSentAsWritten() async throws {
        let server = try TestServer()
        let response = try await CurlTransport().send(HTTPRequest(method: .GET, url: "http://127.0.0.1:\(server.port)/echo/./../backups/../k"))
        let echo = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(echo["path"] as? String == "/echo/./../backups/../k")
    }
}
