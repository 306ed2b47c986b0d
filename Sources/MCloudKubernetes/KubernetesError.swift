import MCloudCore
public import MCloudHTTP

/// A failure talking to a cluster: the API server's `Status` decoded, or why no answer came.
public enum KubernetesError: Error, Sendable, CustomStringConvertible {
    /// The server answered with an error `Status`.
    case api(APIStatus)
    /// No answer came for the operation.
    case transport(operation: String, HTTPError)
    case credentials(String)
    case discovery(String)
    case invalidObject(String)
    case timeout(String)

    /// What the server or a plugin wrote comes through `TerminalText.safe`, so it cannot drive the terminal.
    public var description: String { TerminalText.safe(text) }

    private var text: String {
        switch self {
        case .api(let status): return status.description
        case .transport(let operation, let error): return "\(operation): \(error.description)"
        case .credentials(let message): return "credentials: \(message)"
        case .discovery(let message): return "discovery: \(message)"
        case .invalidObject(let message): return "invalid object: \(message)"
        case .timeout(let message): return "timed out: \(message)"
        }
    }

    /// The API status, when the server gave one.
    public var status: APIStatus? {
        if case .api(let status) = self { return status }
        return nil
    }
}

/// A Kubernetes `Status` object with the operation that got it.
public struct APIStatus: Sendable, Hashable, CustomStringConvertible {
    public struct Cause: Sendable, Hashable {
        public var reason: String?
        public var message: String?
        public var field: String?
    }

    /// A field another manager owns, from a 409 on server-side apply.
    public struct Conflict: Sendable, Hashable {
        public var field: String
        public var manager: String
    }

    public var operation: String
    public var code: Int
    public var reason: String?
    public var message: String
    public var causes: [Cause]

    /// Server-side apply conflicts: which fields, owned by which managers.
    public var conflicts: [Conflict] {
        causes.compactMap { cause in
            guard cause.reason == "FieldManagerConflict", let field = cause.field else { return nil }
            let manager = cause.message.flatMap { message -> String? in
                guard let open = message.firstIndex(of: "\""), let close = message[message.index(after: open)...].firstIndex(of: "\"") else { return nil }
                return String(message[message.index(after: open)..<close])
            }
            return Conflict(field: field, manager: manager ?? "unknown")
        }
    }

    public var description: String {
        var text = "\(operation): \(code)\(reason.map { " \($0)" } ?? ""): \(message)"
        if !conflicts.isEmpty {
            text += " (" + conflicts.map { "\($0.field) is managed by \($0.manager)" }.joined(separator: "; ") + "; apply with --force-conflicts to take them over)"
        } else if !causes.isEmpty, code == 422 {
            text += " (" + causes.compactMap { cause in cause.field.map { "\($0): \(cause.message ?? "")" } }.joined(separator: "; ") + ")"
        }
        return TerminalText.safe(text)
    }

    /// Decodes a `Status` body; anything else keeps the HTTP status and a short excerpt of the body.
    static func decode(operation: String, response: HTTPResponse) -> APIStatus {
        guard let status = try? JSONParser.parse(response.body), status["kind"]?.stringValue == "Status" else {
            let excerpt = String(decoding: response.body.prefix(200), as: UTF8.self)
            return APIStatus(operation: operation, code: response.status, reason: nil, message: excerpt.isEmpty ? "no details" : excerpt, causes: [])
        }
        let causes = (status.value(at: ["details", "causes"])?.arrayItems ?? []).map { cause in
            Cause(reason: cause["reason"]?.stringValue, message: cause["message"]?.stringValue, field: cause["field"]?.stringValue)
        }
        return APIStatus(
            operation: operation, code: status["code"]?.intValue ?? response.status, reason: status["reason"]?.stringValue,
            message: status["message"]?.stringValue ?? "no message", causes: causes
        )
    }
}
