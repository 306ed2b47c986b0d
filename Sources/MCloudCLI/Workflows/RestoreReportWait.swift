import MCloudCore
import MCloudDatabaseEngines
import MCloudProvider

/// Waits for a restoring server's report in the DR leg it restores from (`DatabaseUserData.restoreReportKey`),
/// looking every 2 s until the time-out on the context's clock: a drill's scratch server, a failover's new primary.
struct RestoreReportWait {
    var timeout: Int
    var context: CommandContext

    func report(of server: String, in leg: ResourceState, lister: any BackupLister) async throws(ProviderError) -> RestoreReport {
        let key = DatabaseUserData.restoreReportKey(server: server)
        let poller = Poller(backoff: .constant(2), timeout: Double(timeout), clock: context.clock)
        return try await poller.poll({ () async throws(ProviderError) -> RestoreReport? in
            guard let bytes = try await lister.object(key, in: leg) else { return nil }
            guard let report = RestoreReport(json: bytes) else { throw ProviderError(.failed, "s3://\(leg.providerID)/\(key) is not a restore report") }
            return report
        }, stopped: { stop in
            switch stop {
            case .timedOut: ProviderError(.failed, "no restore report at s3://\(leg.providerID)/\(key) within \(timeout) s (--timeout)")
            case .cancelled: ProviderError(.failed, "the wait for s3://\(leg.providerID)/\(key) was cancelled")
            }
        })
    }
}
