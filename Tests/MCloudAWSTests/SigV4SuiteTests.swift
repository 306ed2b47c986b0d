import Foundation
import MCloudCore
import MCloudHTTP
import Testing
@testable import MCloudAWS

/// The official SigV4 suite (Fixtures/sigv4, from aws-c-auth): every case, header and query signing.
struct SigV4SuiteTests {
    enum Mode: String, CaseIterable, Sendable { case header, query }

    /// A request in the suite's text form: request line, headers (continuation lines kept), blank line, body.
    struct RawRequest: Equatable {
        var method: String
        var target: String
        var headers: [String]
        var body: String

        init(_ text: String) {
            var lines = text.components(separatedBy: "\n")
            let requestLine = lines.removeFirst()
            let space = requestLine.firstIndex(of: " ") ?? requestLine.endIndex
            method = String(requestLine[..<space])
            var target = String(requestLine[space...].dropFirst())
            if target.hasSuffix(" HTTP/1.1") { target.removeLast(" HTTP/1.1".count) }
            self.target = target
            headers = []
            while let line = lines.first, !line.isEmpty {
                lines.removeFirst()
                if line.first == " " || line.first == "\t", !headers.isEmpty {
                    headers[headers.count - 1] += "\n" + line
                } else {
                    headers.append(line)
                }
            }
            body = lines.dropFirst().joined(separator: "\n")
        }

        init(_ request: HTTPRequest) {
            method = request.method.rawValue
            let afterScheme = request.url[request.url.range(of: "://")!.upperBound...]
            target = String(afterScheme[afterScheme.firstIndex(of: "/")!...])
            headers = request.headers.map { "\($0.name):\($0.value)" }
            body = String(decoding: request.body ?? [], as: UTF8.self)
        }

        var request: HTTPRequest {
            let fields = headers.map { line -> (name: String, value: String) in
                let colon = line.firstIndex(of: ":")!
                return (String(line[..<colon]), String(line[line.index(after: colon)...]))
            }
            let host = fields.first { $0.name.lowercased() == "host" }!.value
            return HTTPRequest(method: HTTPRequest.Method(rawValue: method)!, url: "https://\(host)\(target)", headers: fields, body: body.isEmpty ? nil : Array(body.utf8))
        }
    }

    struct Context {
        var signer: SigV4Signer
        var date: Date
        var expires: Int

        init(_ name: String) throws {
            let json = try JSONParser.parse(try Fixtures.text("sigv4/\(name)/context.json"))
            let credentials = AWSCredentials(
                accessKeyID: json["credentials"]?["access_key_id"]?.stringValue ?? "",
                secretAccessKey: json["credentials"]?["secret_access_key"]?.stringValue ?? "",
                sessionToken: json["credentials"]?["token"]?.stringValue
            )
            let options = SigV4Signer.Options(
                normalizePath: json["normalize"] == .bool(true),
                payloadHashHeader: json["sign_body"] == .bool(true),
                omitSessionToken: json["omit_session_token"] == .bool(true)
            )
            signer = SigV4Signer(credentials: credentials, region: json["region"]?.stringValue ?? "", service: json["service"]?.stringValue ?? "", options: options)
            date = try #require(ISO8601DateFormatter().date(from: json["timestamp"]?.stringValue ?? ""))
            expires = json["expiration_in_seconds"]?.intValue ?? 0
        }
    }

    @Test("the suite has all 38 cases", arguments: [Fixtures.sigV4Cases])
    func caseCount(_ cases: [String]) {
        #expect(cases.count == 38)
    }

    @Test("signing reproduces the canonical request, string to sign, signature and signed request", arguments: Fixtures.sigV4Cases, Mode.allCases)
    func vector(_ name: String, _ mode: Mode) throws {
        let context = try Context(name)
        let request = RawRequest(try Fixtures.text("sigv4/\(name)/request.txt")).request
        var signer = context.signer
        if mode == .query { signer.options.payloadHashHeader = false }
        let signed = mode == .header ? signer.sign(request, at: context.date) : signer.presign(request, at: context.date, expires: context.expires)
        let prefix = "sigv4/\(name)/\(mode.rawValue)"
        #expect(signed.canonicalRequest == (try Fixtures.text("\(prefix)-canonical-request.txt")))
        #expect(signed.stringToSign == (try Fixtures.text("\(prefix)-string-to-sign.txt")))
        #expect(signed.signature == (try Fixtures.text("\(prefix)-signature.txt")))
        let expected = RawRequest(try Fixtures.text("\(prefix)-signed-request.txt"))
        #expect(RawRequest(signed.request) == expected)
    }
}
