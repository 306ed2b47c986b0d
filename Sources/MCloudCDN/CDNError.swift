import MCloudCore

/// A CDN API failure in the CDN's own words (control characters escaped by `TerminalText.safe`), naming the
/// operation and never a credential.
public struct CDNError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case unauthorized
        /// Over a quota or rate limit that retries did not outlast.
        case capacity
        /// The resource changed under us (412 on a stale ETag, 409).
        case conflict
        case notFound
        /// Missing endpoint or credentials in the configuration.
        case configuration
        case failed
    }

    public var kind: Kind
    public var operation: String
    /// The HTTP status, when there was an answer.
    public var status: Int?
    public var message: String

    public init(_ kind: Kind, operation: String, status: Int? = nil, message: String) {
        self.kind = kind
        self.operation = operation
        self.status = status
        self.message = message
    }

    public var description: String {
        TerminalText.safe("\(operation): " + (status.map { "HTTP \($0): " } ?? "") + message)
    }
}
