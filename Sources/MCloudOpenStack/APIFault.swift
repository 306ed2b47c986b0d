import Foundation
import MCloudCore
public import MCloudHTTP

/// An OpenStack error body decoded: `{"<fault>": {"code", "message"}}` (Nova, Cinder, Trove), `{"error": {...}}`
/// (Keystone and keystonemiddleware), `{"NeutronError": {"type", "message", "detail"}}`, or oslo's flat shape.
public struct APIFault: Sendable, Hashable, CustomStringConvertible {
    public var operation: String
    public var status: Int
    /// The fault name (`itemNotFound`, `overLimit`), Keystone's title or Neutron's type.
    public var kind: String?
    public var message: String
    public var requestID: String?

    public init(operation: String, status: Int, kind: String?, message: String, requestID: String?) {
        self.operation = operation
        self.status = status
        self.kind = kind
        self.message = message
        self.requestID = requestID
    }

    public var description: String {
        TerminalText.safe("\(operation): HTTP \(status)\(kind.map { " \($0)" } ?? ""): \(message)" + (requestID.map { " (request \($0))" } ?? ""))
    }

    /// Quota exhaustion, as each service reports it.
    public var isQuotaExceeded: Bool {
        switch status {
        case 403: return message.localizedCaseInsensitiveContains("quota exceeded")
        case 413: return kind == "overLimit" || message.localizedCaseInsensitiveContains("quota")
        case 409: return kind == "OverQuota"
        default: return false
        }
    }

    /// Server messages can echo request fields (Nova's 400 repeats the whole server body, user data included),
    /// so long messages are cut.
    static let maxMessageLength = 300

    public static func decode(operation: String, response: HTTPResponse) -> APIFault {
        let requestID = response.header("x-openstack-request-id") ?? response.header("x-compute-request-id")
        var kind: String?
        var message: String?
        if let body = try? JSONParser.parse(response.body) {
            if let neutron = body["NeutronError"] {
                kind = neutron["type"]?.stringValue
                message = neutron["message"]?.stringValue
            } else if let text = body["message"]?.stringValue {
                kind = body["title"]?.stringValue
                message = text
            } else if let (name, fault) = body.objectPairs.first, body.objectPairs.count == 1, let text = fault["message"]?.stringValue {
                kind = name == "error" ? fault["title"]?.stringValue : name
                message = text
            }
        }
        var text = message ?? String(decoding: response.body.prefix(200), as: UTF8.self)
        text = text.replacingOccurrences(of: "<br />", with: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count > maxMessageLength { text = String(text.prefix(maxMessageLength)) + "…" }
        return APIFault(operation: operation, status: response.status, kind: kind, message: text.isEmpty ? "no details" : text, requestID: requestID)
    }
}
