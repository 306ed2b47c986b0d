import MCloudCore
import MCloudHTTP
import Foundation

/// Turns a failed answer into `AWSError`, for all four wire families: Query/XML (`ErrorResponse/Error`), EC2
/// (`Response/Errors/Error`), S3's bare `<Error>`, and REST-JSON (`__type`/`code`, or `X-Amzn-ErrorType`).
enum AWSErrorDecoder {
    static func decode(_ response: HTTPResponse, operation: String) -> AWSError {
        let headerRequestID = response.header("x-amzn-requestid") ?? response.header("x-amz-request-id")
        let headerType = response.header("x-amzn-errortype").map(cleanType)
        let trimmed = response.text.trimmed
        if trimmed.hasPrefix("<"), let root = try? XMLNode.parse(response.body), root.localName != "html" {
            let error = root.localName == "Error" ? root : root.find("Error")
            if let error, let code = error.value("Code"), !code.isEmpty {
                let requestID = root.value("RequestId") ?? root.value("RequestID") ?? error.value("RequestId") ?? headerRequestID
                return .service(AWSServiceError(operation: operation, status: response.status, code: code, message: error.value("Message") ?? "", requestID: requestID))
            }
        }
        if trimmed.hasPrefix("{"), let json = try? JSONParser.parse(response.body) {
            let code = (json["__type"]?.stringValue ?? json["code"]?.stringValue ?? json["Code"]?.stringValue).map(cleanType) ?? headerType
            if let code {
                let message = json["message"]?.stringValue ?? json["Message"]?.stringValue ?? ""
                return .service(AWSServiceError(operation: operation, status: response.status, code: code, message: message, requestID: headerRequestID))
            }
        }
        if let headerType {
            return .service(AWSServiceError(operation: operation, status: response.status, code: headerType, message: snippet(trimmed), requestID: headerRequestID))
        }
        if trimmed.isEmpty, (400..<500).contains(response.status) {
            // HEAD answers carry no body: the status is all there is (S3 HeadBucket gives 404, 403 or 301).
            let code = [400: "BadRequest", 403: "Forbidden", 404: "NotFound", 409: "Conflict", 429: "TooManyRequests"][response.status] ?? "HTTP\(response.status)"
            return .service(AWSServiceError(operation: operation, status: response.status, code: code, message: "", requestID: headerRequestID))
        }
        return .unexpectedAnswer(operation: operation, status: response.status, detail: snippet(trimmed))
    }

    /// `aws.protocoltests#ThrottlingException` and `ThrottlingException:http://…` both mean `ThrottlingException`.
    static func cleanType(_ value: String) -> String {
        var type = Substring(value)
        if let hash = type.lastIndex(of: "#") { type = type[type.index(after: hash)...] }
        if let colon = type.firstIndex(of: ":") { type = type[..<colon] }
        return type.trimmed
    }

    /// The start of a body for an error message: an HTML page's title, else its first 200 characters on one line.
    static func snippet(_ text: String) -> String {
        if let open = text.range(of: "<title>"), let close = text.range(of: "</title>", range: open.upperBound..<text.endIndex) {
            return String(text[open.upperBound..<close.lowerBound]).trimmed
        }
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.isEmpty ? "empty body" : String(line.prefix(200))
    }
}
