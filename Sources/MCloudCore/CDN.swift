/// A content delivery network in front of public services.
public struct CDN: Hashable, Sendable {
    public struct CacheRule: Hashable, Sendable {
        public var path: String
        public var ttlSeconds: Int

        public init(path: String, ttlSeconds: Int) {
            self.path = path
            self.ttlSeconds = ttlSeconds
        }
    }

    public var name: String
    public var origins: [String]
    /// The audiences it must reach; nil means every audience of the application.
    public var audiences: [String]?
    public var trafficGiBMonth: Double
    public var cache: [CacheRule]
    public var location: SourceLocation

    public init(name: String, origins: [String], audiences: [String]?, trafficGiBMonth: Double, cache: [CacheRule], location: SourceLocation) {
        self.name = name
        self.origins = origins
        self.audiences = audiences
        self.trafficGiBMonth = trafficGiBMonth
        self.cache = cache
        self.location = location
    }
}
