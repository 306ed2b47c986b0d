import Foundation
public import MCloudAWS
import MCloudCore
import MCloudHTTP

/// CloudFront as a `CDNService`: one distribution per resource with a custom origin per origin host (the first
/// one serves; CloudFront balances no weights), a cache behaviour per cache path, the marker in `Comment`.
/// Updates read the configuration and write it back with its ETag as `If-Match`; deletes disable first.
public struct CloudFrontCDN: CDNService {
    public let cloudFront: CloudFrontClient

    public init(client: CloudFrontClient) {
        cloudFront = client
    }

    /// A `DistributionConfig` for the spec (pure, so tests compare it as text).
    public static func configXML(_ spec: CDNResourceSpec, callerReference: String) -> String {
        let origins = spec.origins.enumerated().map { index, host in
            "<Origin><Id>origin-\(index + 1)</Id>\(XMLNode.element("DomainName", host))<CustomOriginConfig><HTTPPort>80</HTTPPort><HTTPSPort>443</HTTPSPort>"
                + "<OriginProtocolPolicy>http-only</OriginProtocolPolicy></CustomOriginConfig></Origin>"
        }.joined()
        let behaviours = spec.cacheRules.map { rule in
            "<CacheBehavior>\(XMLNode.element("PathPattern", rule.path))" + behaviour(queryAndCookies: false, ttl: rule.ttlSeconds) + "</CacheBehavior>"
        }.joined()
        return "<DistributionConfig xmlns=\"http://cloudfront.amazonaws.com/doc/\(CloudFrontClient.apiVersion)/\">"
            + XMLNode.element("CallerReference", callerReference) + "<Aliases><Quantity>0</Quantity></Aliases>"
            + "<Origins><Quantity>\(spec.origins.count)</Quantity><Items>\(origins)</Items></Origins>"
            // Paths without a cache rule pass through to the origin uncached, with their query and cookies.
            + "<DefaultCacheBehavior>" + behaviour(queryAndCookies: true, ttl: 0) + "</DefaultCacheBehavior>"
            + "<CacheBehaviors><Quantity>\(spec.cacheRules.count)</Quantity>" + (behaviours.isEmpty ? "" : "<Items>\(behaviours)</Items>") + "</CacheBehaviors>"
            + XMLNode.element("Comment", spec.marker.description) + "<Enabled>true</Enabled></DistributionConfig>"
    }

    private static func behaviour(queryAndCookies: Bool, ttl: Int) -> String {
        "<TargetOriginId>origin-1</TargetOriginId><ViewerProtocolPolicy>redirect-to-https</ViewerProtocolPolicy>"
            + "<TrustedSigners><Enabled>false</Enabled><Quantity>0</Quantity></TrustedSigners>"
            + "<ForwardedValues><QueryString>\(queryAndCookies)</QueryString><Cookies><Forward>\(queryAndCookies ? "all" : "none")</Forward></Cookies></ForwardedValues>"
            + "<MinTTL>0</MinTTL><DefaultTTL>\(ttl)</DefaultTTL><MaxTTL>\(ttl)</MaxTTL>"
    }

    /// A distribution (or its summary in a list) as a deployment.
    public static func deployment(_ node: XMLNode) -> CDNDeployment? {
        guard let id = node.value("Id") else { return nil }
        let config = node.child("DistributionConfig") ?? node
        let origins = config.child("Origins")?.child("Items")?.children("Origin").compactMap { $0.value("DomainName") } ?? []
        let rules = config.child("CacheBehaviors")?.child("Items")?.children("CacheBehavior").compactMap { behaviour -> CDNCacheRule? in
            guard let path = behaviour.value("PathPattern"), let ttl = behaviour.value("DefaultTTL").flatMap({ Int($0) }) else { return nil }
            return CDNCacheRule(path: path, ttlSeconds: ttl)
        } ?? []
        return CDNDeployment(
            id: id, cname: node.value("DomainName") ?? "", origins: origins, cacheRules: rules,
            marker: config.value("Comment").flatMap(CDNMarker.init), status: node.value("Status") ?? "unknown"
        )
    }

    public func list() async throws(CDNError) -> [CDNDeployment] {
        let operation = "cloudfront ListDistributions"
        var found: [CDNDeployment] = []
        var pages = PageTokens(operation: operation)
        var marker: String?
        repeat {
            let query = marker.map { "?Marker=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? ""
            let root = try await xml(.GET, "/distribution\(query)", operation: operation, root: "DistributionList")
            found += root.child("Items")?.children("DistributionSummary").compactMap(Self.deployment) ?? []
            guard root.value("IsTruncated") != "true" || root.value("NextMarker") != nil else {
                throw CDNError(.failed, operation: operation, message: "a truncated listing without a NextMarker")
            }
            do throws(PageTokens.Endless) {
                marker = try pages.next(root.value("IsTruncated") == "true" ? root.value("NextMarker") : nil)
            } catch {
                throw CDNError(.failed, operation: operation, message: error.detail)
            }
        } while marker != nil
        return found.filter { $0.marker != nil }
    }

    public func read(id: String) async throws(CDNError) -> CDNDeployment? {
        let operation = "cloudfront GetDistribution \(id)"
        let distribution: XMLNode
        do throws(CDNError) {
            distribution = try await xml(.GET, "/distribution/\(id)", operation: operation, root: "Distribution")
        } catch where error.kind == .notFound {
            return nil
        }
        // Only a 404 means gone: a distribution without an Id read as absent would make apply create a second one.
        guard let deployment = Self.deployment(distribution) else { throw CDNError(.failed, operation: operation, message: "no distribution Id in the answer") }
        return deployment
    }

    public func ensure(_ spec: CDNResourceSpec, id: String?) async throws(CDNError) -> CDNDeployment {
        var existing = id
        if let id, try await read(id: id) == nil { existing = nil }
        if existing == nil { existing = try await list().first { $0.marker?.address == spec.marker.address }?.id }
        let distribution: String
        if let existing {
            try await replace(spec, id: existing)
            distribution = existing
        } else {
            distribution = try await create(spec)
        }
        do throws(AWSError) {
            _ = try await cloudFront.waitUntilDeployed(id: distribution)
        } catch {
            throw Self.error(error)
        }
        guard let deployed = try await read(id: distribution) else {
            throw CDNError(.notFound, operation: "cloudfront GetDistribution \(distribution)", message: "the distribution disappeared")
        }
        return deployed
    }

    public func delete(id: String) async throws(CDNError) {
        do throws(AWSError) {
            try await cloudFront.deleteDistribution(id: id)
        } catch {
            throw Self.error(error)
        }
    }

    public func purge(id: String, paths: [String]) async throws(CDNError) -> CDNPurge {
        do throws(AWSError) {
            let reference = "mcloud-purge-\(UInt64(cloudFront.client.clock.now * 1000))"
            let invalidation = try await cloudFront.createInvalidation(id: id, paths: paths.isEmpty ? ["/*"] : paths, callerReference: reference)
            return CDNPurge(resourceID: id, id: invalidation, status: "InProgress", cname: "")
        } catch {
            throw Self.error(error)
        }
    }

    /// How long an invalidation is waited for before the purge is reported as not completed.
    public static let purgeTimeout = 240.0

    /// Looks by `Backoff.aws` on the client's clock until the invalidation completes, for `purgeTimeout` seconds.
    public func waitForPurge(_ purge: CDNPurge) async throws(CDNError) -> CDNPurge {
        var current = purge
        let operation = "cloudfront GetInvalidation \(purge.id)"
        return try await cloudFront.client.poller(timeout: Self.purgeTimeout).poll({ () async throws(CDNError) -> CDNPurge? in
            current.status = try await xml(.GET, "/distribution/\(purge.resourceID)/invalidation/\(purge.id)", operation: operation).value("Status") ?? current.status
            return current.isFinished ? current : nil
        }, stopped: { stop in
            switch stop {
            case .timedOut(let seconds, _): return CDNError(.failed, operation: operation, message: "the invalidation did not complete within \(Int(seconds) / 60) minutes")
            case .cancelled: return CDNError(.failed, operation: operation, message: "cancelled")
            }
        })
    }

    private func create(_ spec: CDNResourceSpec) async throws(CDNError) -> String {
        // The same body gives the same reference, so CloudFront answers a retried create with the first one.
        let body = Self.configXML(spec, callerReference: "mcloud-\(spec.marker.digest)-\(spec.cname)")
        do throws(CDNError) {
            let root = try await xml(.POST, "/distribution", body: body, operation: "cloudfront CreateDistribution \(spec.name)")
            guard let id = root.value("Id") else { throw CDNError(.failed, operation: "cloudfront CreateDistribution", message: "no Id in the answer") }
            return id
        } catch where error.status == nil || error.message.contains("DistributionAlreadyExists") {
            // A lost answer, or the retry of one: adopt what the first attempt made.
            guard let found = try await list().first(where: { $0.marker?.address == spec.marker.address })?.id else { throw error }
            return found
        }
    }

    private func replace(_ spec: CDNResourceSpec, id: String) async throws(CDNError) {
        let operation = "cloudfront UpdateDistribution \(id)"
        for attempt in 1...2 {
            let current: (config: XMLNode, etag: String)
            do throws(AWSError) {
                current = try await cloudFront.config(id: id)
            } catch {
                throw Self.error(error)
            }
            let reference = current.config.value("CallerReference") ?? "mcloud-\(spec.marker.digest)"
            let config: XMLNode
            do {
                config = try XMLNode.parse(Array(Self.configXML(spec, callerReference: reference).utf8))
            } catch {
                throw CDNError(.failed, operation: operation, message: error.description)
            }
            do throws(AWSError) {
                _ = try await cloudFront.updateDistribution(id: id, config: config, etag: current.etag)
                return
            } catch {
                // Changed since we read it: read the new version and write over it once.
                guard error.code == "PreconditionFailed", attempt == 1 else { throw Self.error(error) }
            }
        }
    }

    private func xml(_ method: HTTPRequest.Method, _ path: String, body: String? = nil, operation: String, root: String? = nil) async throws(CDNError) -> XMLNode {
        let request = HTTPRequest(
            method: method, url: cloudFront.client.endpoint(for: .cloudFront) + "/\(CloudFrontClient.apiVersion)" + path,
            headers: body == nil ? [] : [("Content-Type", "application/xml")], body: body.map { Array($0.utf8) }
        )
        do throws(AWSError) {
            return try AWSClient.xml(try await cloudFront.client.send(request, service: .cloudFront, operation: operation), operation: operation, root: root)
        } catch {
            throw Self.error(error)
        }
    }

    static func error(_ error: AWSError) -> CDNError {
        let operation: String
        switch error {
        case .service(let service): operation = service.operation
        case .unexpectedAnswer(let name, _, _), .invalidResponse(let name, _), .transport(let name, _): operation = name
        case .configuration, .timeout: operation = "cloudfront"
        }
        let kind: CDNError.Kind
        switch (error.status, error.code) {
        case (_, "NoSuchDistribution"?), (_, "NoSuchInvalidation"?), (404?, _): kind = .notFound
        case (_, "PreconditionFailed"?), (412?, _), (409?, _): kind = .conflict
        case (_, "TooManyDistributions"?), (_, "TooManyInvalidationsInProgress"?), (_, "TooManyCacheBehaviors"?), (_, "TooManyOrigins"?): kind = .capacity
        case (401?, _), (403?, _): kind = .unauthorized
        default: kind = .failed
        }
        if case .transport = error { return CDNError(kind, operation: operation, message: error.description) }
        return CDNError(kind, operation: operation, status: error.status, message: error.description)
    }
}
