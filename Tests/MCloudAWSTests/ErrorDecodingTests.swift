import MCloudHTTP
import Testing
@testable import MCloudAWS

/// Error answers of every wire family, as moto and AWS send them (bodies from docs/testbeds and the AWS docs).
struct ErrorDecodingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int
        var headers: [String]
        var body: String
        var code: String
        var message: String
        var requestID: String?
        var testDescription: String { name }
    }

    @Test("typed errors are decoded from Query, EC2, S3, CloudFront and REST-JSON answers", arguments: [
        Case(
            name: "EC2 Response/Errors/Error", status: 400, headers: [],
            body: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response><Errors><Error><Code>InvalidInstanceID.NotFound</Code><Message>The instance ID 'i-1' does not exist</Message></Error></Errors><RequestID>59dbff89-35bd</RequestID></Response>",
            code: "InvalidInstanceID.NotFound", message: "The instance ID 'i-1' does not exist", requestID: "59dbff89-35bd"
        ),
        Case(
            name: "moto EC2 AuthFailure in ErrorResponse/Errors", status: 401, headers: [],
            body: "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<ErrorResponse><Errors><Error><Code>AuthFailure</Code><Message>AWS was not able to validate the provided access credentials</Message><Type>Sender</Type></Error></Errors></ErrorResponse>",
            code: "AuthFailure", message: "AWS was not able to validate the provided access credentials"
        ),
        Case(
            name: "RDS ErrorResponse/Error", status: 404, headers: [],
            body: "<ErrorResponse><Error><Type>Sender</Type><Code>DBInstanceNotFound</Code><Message>DBInstance nope not found.</Message></Error><RequestId>523e3218-afc7</RequestId></ErrorResponse>",
            code: "DBInstanceNotFound", message: "DBInstance nope not found.", requestID: "523e3218-afc7"
        ),
        Case(
            name: "CloudFront namespaced ErrorResponse", status: 412, headers: [],
            body: "<?xml version=\"1.0\"?>\n<ErrorResponse xmlns=\"http://cloudfront.amazonaws.com/doc/2020-05-31/\"><Error><Type>Sender</Type><Code>PreconditionFailed</Code><Message>The If-Match version is missing or not valid.</Message></Error><RequestId>ab12</RequestId></ErrorResponse>",
            code: "PreconditionFailed", message: "The If-Match version is missing or not valid.", requestID: "ab12"
        ),
        Case(
            name: "S3 bare Error", status: 404, headers: [],
            body: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><BucketName>b &amp; c</BucketName><RequestId>7A4B</RequestId><HostId>h</HostId></Error>",
            code: "NoSuchBucket", message: "The specified bucket does not exist", requestID: "7A4B"
        ),
        Case(
            name: "REST-JSON type in the header only (moto EKS)", status: 404, headers: ["X-Amzn-ErrorType: ResourceNotFoundException:http://internal.amazon.com/coral/", "x-amzn-RequestId: r-1"],
            body: "{\"clusterName\": \"nope\", \"message\": \"No cluster found for name: nope.\"}",
            code: "ResourceNotFoundException", message: "No cluster found for name: nope.", requestID: "r-1"
        ),
        Case(
            name: "REST-JSON __type with a namespace", status: 400, headers: [],
            body: "{\"__type\": \"com.amazonaws.eks#InvalidParameterException\", \"message\": \"bad version\"}",
            code: "InvalidParameterException", message: "bad version"
        ),
        Case(name: "REST-JSON code", status: 429, headers: [], body: "{\"code\": \"ThrottlingException\", \"Message\": \"Rate exceeded\"}", code: "ThrottlingException", message: "Rate exceeded"),
        Case(name: "HEAD without a body", status: 404, headers: ["x-amz-request-id: H1"], body: "", code: "NotFound", message: "", requestID: "H1"),
    ])
    func typed(_ testCase: Case) {
        let headers = testCase.headers.map { line -> (name: String, value: String) in
            let colon = line.firstIndex(of: ":")!
            return (line[..<colon].lowercased(), String(line[line.index(after: colon)...].dropFirst()))
        }
        let error = AWSErrorDecoder.decode(HTTPResponse(status: testCase.status, headers: headers, body: Array(testCase.body.utf8)), operation: "svc Op")
        guard case .service(let service) = error else {
            Issue.record("not a service error: \(error)")
            return
        }
        #expect(service == AWSServiceError(operation: "svc Op", status: testCase.status, code: testCase.code, message: testCase.message, requestID: testCase.requestID))
        #expect(error.description.hasPrefix("svc Op: \(testCase.code) (HTTP \(testCase.status))"))
    }

    @Test("moto's HTML 500 page is an unexpected answer with the status and the page title", arguments: [
        ("<!doctype html>\n<html lang=en>\n<title>500 Internal Server Error</title>\n<h1>Internal Server Error</h1>", "500 Internal Server Error"),
        ("not xml at all", "not xml at all"),
        ("<Broken><Code>", "<Broken><Code>"),
    ])
    func unexpected(_ body: String, _ detail: String) {
        let error = AWSErrorDecoder.decode(HTTPResponse(status: 500, body: Array(body.utf8)), operation: "ec2 Nope")
        guard case .unexpectedAnswer(let operation, let status, let seen) = error else {
            Issue.record("not an unexpected answer: \(error)")
            return
        }
        #expect(operation == "ec2 Nope")
        #expect(status == 500)
        #expect(seen == detail)
    }

    @Test("throttling codes and 429 count as throttling; other codes do not", arguments: [
        ("Throttling", 400, true), ("ThrottlingException", 400, true), ("RequestLimitExceeded", 503, true), ("SlowDown", 503, true),
        ("TooManyRequests", 429, true), ("InvalidParameterValue", 400, false), ("InternalError", 500, false),
    ])
    func throttling(_ code: String, _ status: Int, _ expected: Bool) {
        #expect(AWSServiceError(operation: "op", status: status, code: code, message: "").isThrottling == expected)
    }

    @Test("XML text keeps entities decoded and CDATA as written")
    func xmlText() throws {
        let node = try XMLNode.parse(Array("<a x='1 &amp; 2'><b>&lt;tag&gt; &#x41;&#66;</b><c><![CDATA[<raw>]]></c><!-- note --><d/></a>".utf8))
        #expect(node.attributes["x"] == "1 & 2")
        #expect(node.value("b") == "<tag> AB")
        #expect(node.value("c") == "<raw>")
        #expect(node.child("d") != nil)
        #expect(throws: XMLNode.ParseError.self) { try XMLNode.parse(Array("<a><b></a>".utf8)) }
    }
}
