import MCloudHTTP
@testable import MCloudOpenStack
import Testing

@Suite("error decoding")
struct FaultTests {
    static func response(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("x-openstack-request-id", "req-1")], body: Array(body.utf8))
    }

    @Test("each service's error shape is decoded", arguments: [
        (404, #"{"itemNotFound": {"code": 404, "message": "Instance 0 could not be found."}}"#, "itemNotFound", "Instance 0 could not be found.", false),
        (401, #"{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}"#, "Unauthorized", "The request you have made requires authentication.", false),
        (409, #"{"NeutronError": {"type": "SecurityGroupRuleExists", "message": "Security group rule already exists. Rule id is 1.", "detail": ""}}"#, "SecurityGroupRuleExists", "Security group rule already exists. Rule id is 1.", false),
        (403, #"{"forbidden": {"code": 403, "message": "Quota exceeded for instances: Requested 3, but already used 0 of 2 instances"}}"#, "forbidden", "Quota exceeded for instances: Requested 3, but already used 0 of 2 instances", true),
        (403, #"{"forbidden": {"code": 403, "message": "Policy doesn't allow os_compute_api:os-flavor-manage:create to be performed."}}"#, "forbidden", "Policy doesn't allow os_compute_api:os-flavor-manage:create to be performed.", false),
        (413, #"{"overLimit": {"code": 413, "message": "VolumeSizeExceedsAvailableQuota: Requested volume or snapshot exceeds allowed gigabytes quota.", "retryAfter": "0"}}"#, "overLimit", "VolumeSizeExceedsAvailableQuota: Requested volume or snapshot exceeds allowed gigabytes quota.", true),
        (413, #"{"message": "Request is too large. Larger than max_request_body_size (114688).<br /><br />\n\n\n", "code": "413 Request Entity Too Large", "title": "Request Entity Too Large"}"#, "Request Entity Too Large", "Request is too large. Larger than max_request_body_size (114688).", false),
        (502, "<html>bad gateway</html>", nil, "<html>bad gateway</html>", false),
    ] as [(Int, String, String?, String, Bool)])
    func decoding(status: Int, body: String, kind: String?, message: String, quota: Bool) {
        let fault = APIFault.decode(operation: "op", response: Self.response(status, body))
        #expect(fault.kind == kind)
        #expect(fault.message == message)
        #expect(fault.requestID == "req-1")
        #expect(fault.isQuotaExceeded == quota)
    }

    @Test("a long message that echoes the request is cut")
    func longMessage() {
        let fault = APIFault.decode(operation: "op", response: Self.response(400, #"{"badRequest": {"code": 400, "message": "\#(String(repeating: "x", count: 1000))"}}"#))
        #expect(fault.message.count == APIFault.maxMessageLength + 1)
    }

    @Test("the description names the operation, status, kind and request id")
    func description() {
        let fault = APIFault.decode(operation: "create server web", response: Self.response(404, #"{"itemNotFound": {"code": 404, "message": "gone"}}"#))
        #expect(OpenStackError.api(fault).description == "create server web: HTTP 404 itemNotFound: gone (request req-1)")
    }
}
