/// One CDN API: G-Core's (and VK's, which speaks the same), or CloudFront's. A service deploys one resource per
/// mcloud address, found again by the marker it carries, with its origins and per-path cache rules.
public protocol CDNService: Sendable {
    /// Every resource carrying an mcloud marker, with what the CDN reports for it.
    func list() async throws(CDNError) -> [CDNDeployment]

    /// Creates the resource (or adopts the one a lost answer created, found by its marker's address), or changes
    /// the one at `id` in place; returns once the CDN reports it deployed.
    func ensure(_ spec: CDNResourceSpec, id: String?) async throws(CDNError) -> CDNDeployment

    /// The resource with this id, nil when it does not exist.
    func read(id: String) async throws(CDNError) -> CDNDeployment?

    /// Deletes the resource and returns once the CDN no longer has it; a missing resource counts as deleted.
    func delete(id: String) async throws(CDNError)

    /// Starts purging the given path patterns (`/static/*`; empty purges everything) and returns the purge.
    func purge(id: String, paths: [String]) async throws(CDNError) -> CDNPurge

    /// Polls the purge until the CDN reports it finished (or failed).
    func waitForPurge(_ purge: CDNPurge) async throws(CDNError) -> CDNPurge
}

/// A per-path cache rule: matching paths are kept at the edge for `ttlSeconds`.
public struct CDNCacheRule: Sendable, Hashable {
    /// A glob with `*` as the manifests write it: `/static/*`.
    public var path: String
    public var ttlSeconds: Int

    public init(path: String, ttlSeconds: Int) {
        self.path = path
        self.ttlSeconds = ttlSeconds
    }
}

/// What mcloud wants one CDN resource to be.
public struct CDNResourceSpec: Sendable, Hashable {
    /// The resource's name on the CDN: the manifest's `metadata.name` (`retail-bank.static-eu`).
    public var name: String
    /// The public host name the CDN serves.
    public var cname: String
    /// Origin host names, in the manifest's order.
    public var origins: [String]
    public var cacheRules: [CDNCacheRule]
    /// Identifies the resource as mcloud's (`CDNMarker`), kept in a field the CDN stores as it is.
    public var marker: CDNMarker

    public init(name: String, cname: String, origins: [String], cacheRules: [CDNCacheRule], marker: CDNMarker) {
        self.name = name
        self.cname = cname
        self.origins = origins
        self.cacheRules = cacheRules
        self.marker = marker
    }
}

/// A CDN resource as the CDN reports it.
public struct CDNDeployment: Sendable, Hashable {
    public var id: String
    public var cname: String
    public var origins: [String]
    public var cacheRules: [CDNCacheRule]
    public var marker: CDNMarker?
    /// The CDN's own word: `processed`/`active` (G-Core), `InProgress`/`Deployed` (CloudFront).
    public var status: String
    public var isDeleting: Bool

    public init(id: String, cname: String, origins: [String], cacheRules: [CDNCacheRule], marker: CDNMarker?, status: String, isDeleting: Bool = false) {
        self.id = id
        self.cname = cname
        self.origins = origins
        self.cacheRules = cacheRules
        self.marker = marker
        self.status = status
        self.isDeleting = isDeleting
    }
}

/// An asynchronous purge (a CloudFront invalidation) and its last known status.
public struct CDNPurge: Sendable, Hashable {
    public var resourceID: String
    public var id: String
    /// `In progress`, `Successful`, `Failed` (G-Core); `InProgress`, `Completed` (CloudFront).
    public var status: String
    /// The G-Core purge status list is searched by the resource's cname.
    public var cname: String

    public init(resourceID: String, id: String, status: String, cname: String) {
        self.resourceID = resourceID
        self.id = id
        self.status = status
        self.cname = cname
    }

    public var isFinished: Bool {
        ["successful", "completed", "failed"].contains(status.lowercased())
    }
}
