import MCloudHTTP

/// CloudFront distributions with their optimistic concurrency: every write sends the ETag it read as `If-Match`.
/// Deleting takes disable, wait until deployed, delete, the order the API requires.
public struct CloudFrontClient: Sendable {
    public static let apiVersion = "2020-05-31"
    static let namespace = "http://cloudfront.amazonaws.com/doc/2020-05-31/"
    public let client: AWSClient

    public init(client: AWSClient) {
        self.client = client
    }

    public struct DistributionSpec: Sendable, Hashable {
        /// Makes a retried create return the same distribution instead of a second one.
        public var callerReference: String
        public var comment: String
        public var aliases: [String]
        /// The origin's host name (a load balancer or another CDN's edge).
        public var originDomain: String
        /// `http-only`, `https-only` or `match-viewer`.
        public var originProtocolPolicy: String
        public var enabled: Bool

        public init(callerReference: String, comment: String, aliases: [String] = [], originDomain: String, originProtocolPolicy: String = "https-only", enabled: Bool = true) {
            self.callerReference = callerReference
            self.comment = comment
            self.aliases = aliases
            self.originDomain = originDomain
            self.originProtocolPolicy = originProtocolPolicy
            self.enabled = enabled
        }

        /// A `DistributionConfig` with one custom origin and a default cache behaviour that forwards nothing.
        public var xml: String {
            let aliasItems = aliases.map { XMLNode.element("CNAME", $0) }.joined()
            return """
            <DistributionConfig xmlns="\(CloudFrontClient.namespace)">\(XMLNode.element("CallerReference", callerReference))\
            <Aliases><Quantity>\(aliases.count)</Quantity>\(aliases.isEmpty ? "" : "<Items>\(aliasItems)</Items>")</Aliases>\
            <Origins><Quantity>1</Quantity><Items><Origin><Id>origin-1</Id>\(XMLNode.element("DomainName", originDomain))\
            <CustomOriginConfig><HTTPPort>80</HTTPPort><HTTPSPort>443</HTTPSPort>\(XMLNode.element("OriginProtocolPolicy", originProtocolPolicy))</CustomOriginConfig>\
            </Origin></Items></Origins>\
            <DefaultCacheBehavior><TargetOriginId>origin-1</TargetOriginId><ViewerProtocolPolicy>redirect-to-https</ViewerProtocolPolicy>\
            <TrustedSigners><Enabled>false</Enabled><Quantity>0</Quantity></TrustedSigners>\
            <ForwardedValues><QueryString>false</QueryString><Cookies><Forward>none</Forward></Cookies></ForwardedValues><MinTTL>0</MinTTL>\
            </DefaultCacheBehavior>\(XMLNode.element("Comment", comment))<Enabled>\(enabled)</Enabled></DistributionConfig>
            """
        }
    }

    public struct Distribution: Sendable, Hashable {
        public var id: String
        /// `InProgress` or `Deployed`.
        public var status: String
        public var domainName: String
        public var enabled: Bool
        /// The version to send as `If-Match` with the next write.
        public var etag: String
    }

    public func createDistribution(_ spec: DistributionSpec) async throws(AWSError) -> Distribution {
        let response = try await send(.POST, "/distribution", body: spec.xml, operation: "cloudfront CreateDistribution")
        return try distribution(response, operation: "cloudfront CreateDistribution")
    }

    public func distribution(id: String) async throws(AWSError) -> Distribution {
        try distribution(try await send(.GET, "/distribution/\(id)", operation: "cloudfront GetDistribution \(id)"), operation: "cloudfront GetDistribution \(id)")
    }

    /// The current configuration and its ETag.
    public func config(id: String) async throws(AWSError) -> (config: XMLNode, etag: String) {
        let operation = "cloudfront GetDistributionConfig \(id)"
        let response = try await send(.GET, "/distribution/\(id)/config", operation: operation)
        return (try AWSClient.xml(response, operation: operation), try etag(response, operation: operation))
    }

    /// Replaces the configuration if it is still at `etag` (else `PreconditionFailed`); returns the new state.
    public func updateDistribution(id: String, config: XMLNode, etag: String) async throws(AWSError) -> Distribution {
        let operation = "cloudfront UpdateDistribution \(id)"
        let response = try await send(.PUT, "/distribution/\(id)/config", body: config.serialized(), headers: [("If-Match", etag)], operation: operation)
        return try distribution(response, operation: operation)
    }

    /// Reads the configuration, sets `Enabled`, and writes it back with the ETag just read.
    public func setEnabled(id: String, _ enabled: Bool) async throws(AWSError) -> Distribution {
        var (config, etag) = try await config(id: id)
        guard let index = config.children.firstIndex(where: { $0.localName == "Enabled" }) else {
            throw .invalidResponse(operation: "cloudfront GetDistributionConfig \(id)", detail: "no Enabled element")
        }
        config.children[index].text = String(enabled)
        return try await updateDistribution(id: id, config: config, etag: etag)
    }

    /// Polls with backoff until the distribution reports `Deployed` (compared without case).
    public func waitUntilDeployed(id: String, timeout: Double = 1800) async throws(AWSError) -> Distribution {
        var last: Distribution?
        try await client.poller(timeout: timeout).until("CloudFront distribution \(id) deployed") { () throws(AWSError) in
            let current = try await distribution(id: id)
            last = current
            return current.status.lowercased() == "deployed"
        }
        guard let last else { throw .timeout("CloudFront distribution \(id) deployed") }
        return last
    }

    /// Starts an invalidation of the paths and returns its id.
    public func createInvalidation(id: String, paths: [String], callerReference: String) async throws(AWSError) -> String {
        let operation = "cloudfront CreateInvalidation \(id)"
        let items = paths.map { XMLNode.element("Path", $0) }.joined()
        let body = "<InvalidationBatch xmlns=\"\(Self.namespace)\"><Paths><Quantity>\(paths.count)</Quantity><Items>\(items)</Items></Paths>\(XMLNode.element("CallerReference", callerReference))</InvalidationBatch>"
        let response = try await send(.POST, "/distribution/\(id)/invalidation", body: body, operation: operation)
        guard let invalidation = try AWSClient.xml(response, operation: operation).value("Id") else {
            throw .invalidResponse(operation: operation, detail: "no invalidation Id in the answer")
        }
        return invalidation
    }

    /// Disables the distribution when needed, waits until that is deployed, then deletes with the latest ETag.
    /// A distribution that no longer exists counts as deleted.
    public func deleteDistribution(id: String, timeout: Double = 1800) async throws(AWSError) {
        do {
            var current = try await distribution(id: id)
            if current.enabled { current = try await setEnabled(id: id, false) }
            current = try await waitUntilDeployed(id: id, timeout: timeout)
            _ = try await send(.DELETE, "/distribution/\(id)", headers: [("If-Match", current.etag)], operation: "cloudfront DeleteDistribution \(id)")
        } catch where error.code == "NoSuchDistribution" {
            return
        }
    }

    private func distribution(_ response: HTTPResponse, operation: String) throws(AWSError) -> Distribution {
        let root = try AWSClient.xml(response, operation: operation)
        guard let id = root.value("Id") else { throw .invalidResponse(operation: operation, detail: "no distribution Id in the answer") }
        return Distribution(
            id: id, status: root.value("Status") ?? "unknown", domainName: root.value("DomainName") ?? "",
            enabled: root.child("DistributionConfig")?.value("Enabled") == "true", etag: try etag(response, operation: operation)
        )
    }

    private func etag(_ response: HTTPResponse, operation: String) throws(AWSError) -> String {
        guard let etag = response.header("etag"), !etag.isEmpty else { throw .invalidResponse(operation: operation, detail: "no ETag header") }
        return etag
    }

    private func send(
        _ method: HTTPRequest.Method, _ path: String, body: String? = nil, headers: [(name: String, value: String)] = [], operation: String
    ) async throws(AWSError) -> HTTPResponse {
        var headers = headers
        if body != nil { headers.append(("Content-Type", "application/xml")) }
        let request = HTTPRequest(method: method, url: client.endpoint(for: .cloudFront) + "/\(Self.apiVersion)" + path, headers: headers, body: body.map { Array($0.utf8) })
        return try await client.send(request, service: .cloudFront, operation: operation)
    }
}
