import MCloudHTTP

/// Waits for a condition with backoff: the first check at once, then 1 s, 2 s, 4 s... up to 15 s between checks.
public struct AWSPoller: Sendable {
    let client: AWSClient
    let timeout: Double
    var firstDelay = 1.0
    var maxDelay = 15.0

    public init(client: AWSClient, timeout: Double) {
        self.client = client
        self.timeout = timeout
    }

    public func until(_ what: String, _ done: () async throws(AWSError) -> Bool) async throws(AWSError) {
        var waited = 0.0
        var delay = firstDelay
        while try await !done() {
            guard waited < timeout else { throw .timeout("\(what) not reached within \(Int(timeout)) s") }
            do throws(HTTPError) {
                try await client.sleeper.sleep(seconds: delay)
            } catch {
                throw .transport(operation: what, error)
            }
            waited += delay
            delay = min(maxDelay, delay * 2)
        }
    }
}
