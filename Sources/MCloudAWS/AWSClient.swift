public import Foundation
public import MCloudCore
public import MCloudHTTP

/// Signs and sends requests to AWS services, decodes typed errors, and retries throttling (Throttling,
/// RequestLimitExceeded, SlowDown, 429, 503...) with exponential backoff and full jitter. Service clients
/// (`S3Client`, `EC2Client`, ...) are thin layers over it.
public struct AWSClient: Sendable {
    public let configuration: AWSConfiguration
    public let retryPolicy: RetryPolicy
    let transport: any HTTPTransport
    /// Waits between retries of one request.
    public let sleeper: any Sleeper
    /// The time requests are signed at, and the clock every wait for AWS runs on.
    public let clock: any WallClock
    public let jitter: @Sendable () -> Double
    let logger: (any HTTPLogger)?

    public init(
        configuration: AWSConfiguration, transport: any HTTPTransport = CurlTransport(), retryPolicy: RetryPolicy = RetryPolicy(),
        sleeper: any Sleeper = TaskSleeper(), logger: (any HTTPLogger)? = nil,
        clock: any WallClock = SystemClock(), jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.configuration = configuration
        self.transport = transport
        self.retryPolicy = retryPolicy
        self.sleeper = sleeper
        self.logger = logger
        self.clock = clock
        self.jitter = jitter
    }

    /// `clock`'s time.
    public var now: Date { Date(timeIntervalSince1970: clock.now) }

    /// The signer for a service: global services sign for their own region.
    public func signer(for service: AWSService, region: String? = nil, options: SigV4Signer.Options = .standard) -> SigV4Signer {
        SigV4Signer(credentials: configuration.credentials, region: service.globalRegion ?? region ?? configuration.region, service: service.signingName, options: options)
    }

    public func endpoint(for service: AWSService, region: String? = nil) -> String {
        configuration.endpoint(for: service, region: region)
    }

    /// Signs (again on every attempt, so the date stays fresh) and sends. A 2xx answer is returned; anything else
    /// becomes `AWSError`. Throttled requests are always retried, since AWS did not run them; 500/502/503/504 and
    /// connection failures only when `request.retryable`. Attempts and waits together end within the policy's
    /// deadline, or the request fails as a timeout naming the operation and the limit.
    public func send(
        _ request: HTTPRequest, service: AWSService, operation: String, region: String? = nil, signing: SigV4Signer.Options = .standard
    ) async throws(AWSError) -> HTTPResponse {
        if !configuration.isCustomEndpoint(service), service.globalRegion == nil {
            // The region is spliced into the host name: anything but a region would send signed calls elsewhere.
            try Self.checkRegion(region ?? configuration.region)
        }
        let signer = signer(for: service, region: region, options: signing)
        let end = retryPolicy.deadline(from: .now)
        let outOfTime = AWSError.transport(operation: operation, .timeout(url: request.url, seconds: retryPolicy.deadline))
        var waited = 0.0
        var attempt = 1
        while true {
            let left = RetryPolicy.secondsLeft(until: end)
            guard left > 0 else { throw outOfTime }
            var signed = signer.sign(request, at: now).request
            signed.timeLimit = min(request.timeLimit ?? left, left)
            let failure: AWSError
            var delay = backoff(attempt)
            switch await exchange(signed) {
            case .success(let response):
                if (200..<300).contains(response.status) { return response }
                failure = AWSErrorDecoder.decode(response, operation: operation)
                let throttled = if case .service(let error) = failure { error.isThrottling } else { false }
                guard throttled || (request.retryable && [500, 502, 503, 504].contains(response.status)) else { throw failure }
                if let asked = response.header("retry-after").flatMap({ RetryAfter.seconds($0, now: now) }) { delay = min(asked, retryPolicy.maxDelay) }
            case .failure(let error):
                if case .timeout = error, RetryPolicy.secondsLeft(until: end) <= 0.25 { throw outOfTime }
                failure = .transport(operation: operation, error)
                guard request.retryable, error.isRetryable else { throw failure }
            }
            guard attempt < retryPolicy.maxAttempts, waited + delay <= retryPolicy.budget, delay < RetryPolicy.secondsLeft(until: end) else { throw failure }
            logger?.debug("aws retry \(attempt) of \(operation) in \(String(format: "%.2f", delay)) s after \(failure)")
            do throws(HTTPError) {
                try await sleeper.sleep(seconds: delay)
            } catch {
                throw .transport(operation: operation, error)
            }
            waited += delay
            attempt += 1
        }
    }

    /// The AWS Query and EC2 protocols: a form POST of `Action`, `Version` and the parameters; the XML answer.
    public func query(
        _ service: AWSService, action: String, version: String, parameters: [(String, String)], region: String? = nil, idempotent: Bool = false
    ) async throws(AWSError) -> XMLNode {
        let body = PercentEncoding.form([("Action", action), ("Version", version)] + parameters)
        let request = HTTPRequest(
            method: .POST, url: endpoint(for: service, region: region) + "/",
            headers: [("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")], body: Array(body.utf8), retryable: idempotent
        )
        let response = try await send(request, service: service, operation: "\(service) \(action)", region: region)
        return try Self.xml(response, operation: "\(service) \(action)", root: "\(action)Response")
    }

    /// The answer's body as XML, or `invalidResponse` naming the operation. With `root`, a document whose root
    /// element has another name is refused too: read as an empty result, it would make a resource look deleted
    /// outside mcloud, and apply would create a second one.
    public static func xml(_ response: HTTPResponse, operation: String, root: String? = nil) throws(AWSError) -> XMLNode {
        let document: XMLNode
        do {
            document = try XMLNode.parse(response.body)
        } catch {
            throw .invalidResponse(operation: operation, detail: error.description)
        }
        if let root, document.localName != root {
            throw .invalidResponse(operation: operation, detail: "the answer is a <\(document.name)> document, not <\(root)>")
        }
        return document
    }

    /// `us-east-1`, `eu-central-2`, `us-gov-west-1`, `cn-north-1`: two letters, words, then a number.
    static func checkRegion(_ region: String) throws(AWSError) {
        let parts = region.split(separator: "-", omittingEmptySubsequences: false)
        let letters = { (part: Substring) in !part.isEmpty && part.allSatisfy { ("a"..."z").contains($0) } }
        guard parts.count >= 3, parts[0].count == 2, letters(parts[0]), parts.dropFirst().dropLast().allSatisfy(letters),
              let number = parts.last, (1...2).contains(number.count), number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber)
        else {
            throw .configuration("region \"\(region)\" is not an AWS region name (such as eu-central-1), so no host name is built from it")
        }
    }

    private func exchange(_ request: HTTPRequest) async -> Result<HTTPResponse, HTTPError> {
        do throws(HTTPError) {
            return .success(try await transport.send(request))
        } catch {
            return .failure(error)
        }
    }

    private func backoff(_ attempt: Int) -> Double {
        min(retryPolicy.maxDelay, retryPolicy.baseDelay * pow(2, Double(attempt - 1))) * jitter()
    }
}
