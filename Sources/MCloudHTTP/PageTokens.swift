/// Follows the tokens of a paginated listing and stops one that would never end: a server that hands back a token
/// it gave before (a loop), or that says "more" for more pages than any real listing has. Without it a listing
/// grows in memory until the process is killed, holding the state lock.
public struct PageTokens: Sendable {
    /// More pages than this is taken for an endless listing (docs/security.md, M2, gives the reasoning).
    public static let defaultMaxPages = 1_000

    public let operation: String
    public let maxPages: Int
    public private(set) var pages = 0
    private var seen: Set<String> = []

    public init(operation: String, maxPages: Int = Self.defaultMaxPages) {
        self.operation = operation
        self.maxPages = maxPages
    }

    /// Records one page read and the token it gave for the next (nil or empty: the last page). Returns the token to
    /// ask with, or nil when the listing is complete.
    public mutating func next(_ token: String?) throws(Endless) -> String? {
        pages += 1
        guard let token, !token.isEmpty else { return nil }
        guard pages < maxPages else { throw Endless(operation: operation, reason: .tooManyPages(maxPages)) }
        guard seen.insert(token).inserted else { throw Endless(operation: operation, reason: .repeatedToken(token)) }
        return token
    }

    /// A listing that does not end, and why it was stopped.
    public struct Endless: Error, Sendable, Hashable, CustomStringConvertible {
        public enum Reason: Sendable, Hashable {
            case repeatedToken(String)
            case tooManyPages(Int)
        }

        public var operation: String
        public var reason: Reason

        public var description: String { "\(operation): \(detail)" }

        /// Why, without the operation.
        public var detail: String {
            switch reason {
            case .repeatedToken(let token): return "the server gave the page token \"\(token.prefix(80))\" a second time; the listing would never end"
            case .tooManyPages(let limit): return "still more pages after \(limit); the listing is taken to be endless"
            }
        }
    }
}
