import MCloudDatabaseEngines
import MCloudOpenStack
public import MCloudProvider

/// The datastores and versions the cloud's Trove lists, for `mcloud catalog offers`; a cloud without Trove in its
/// service catalog sells nothing managed.
extension OpenStackResourceProvider: ManagedOfferLister {
    public func managedOffers() async throws(ProviderError) -> ManagedOffers {
        let source = "Trove GET /datastores"
        let datastores: [String: [String]]
        do throws(OpenStackError) {
            datastores = try await connection.clients().trove.datastores()
        } catch {
            if case .noEndpoint = error { return ManagedOffers(source: "\(source) (no database service in the cloud's catalog)", versions: [:]) }
            throw ProviderFailure.wrap(error, "listing Trove's datastores in \(cloud)")
        }
        var versions: [String: [String]] = [:]
        // mariadb's versions are mysql's, as the catalog's offers.dbaas merges them.
        for (name, listed) in datastores where !listed.isEmpty {
            versions[Engine.canonicalName(name), default: []] += listed
        }
        return ManagedOffers(source: source, versions: versions)
    }
}
