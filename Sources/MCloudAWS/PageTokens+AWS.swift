import MCloudHTTP

extension PageTokens {
    /// `next(_:)` with an endless listing reported as the operation's unusable answer.
    mutating func advance(_ token: String?) throws(AWSError) -> String? {
        do {
            return try next(token)
        } catch {
            throw .invalidResponse(operation: error.operation, detail: error.detail)
        }
    }
}
