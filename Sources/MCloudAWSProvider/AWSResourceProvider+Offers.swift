import MCloudAWS
public import MCloudProvider

/// The engines and versions the region's RDS sells, for `mcloud catalog offers`: only RDS's, as this provider makes
/// managed databases there only (a catalog's managed `redis` on AWS is ElastiCache, which it does not make).
extension AWSResourceProvider: ManagedOfferLister {
    public func managedOffers() async throws(ProviderError) -> ManagedOffers {
        let rds = try await session().rds
        var versions: [String: [String]] = [:]
        for engine in AWSEngine.rdsEngines {
            let sold = try await Self.attempt("listing RDS's \(engine) versions in \(cloud)") { () throws(AWSError) in
                try await rds.engineVersions(engine: engine)
            }
            if !sold.isEmpty { versions[AWSEngine.mcloudName(engine), default: []] += sold }
        }
        return ManagedOffers(source: "RDS DescribeDBEngineVersions", versions: versions)
    }
}
