import MCloudCore
import MCloudDatabaseEngines
import MCloudEngine
import MCloudProvider
import MCloudSecrets

/// A planned move of a PostgreSQL cell's primary to its standby (docs/databases.md, "Switchover"): refused before
/// anything is written unless the cell's members take signed orders from its DR bucket and the target follows the
/// primary closely in the primary's newest replication report; then the signed order goes into the bucket, the
/// members' steps are awaited (the primary demotes, the target replays past the demote's LSN and promotes, the other
/// standbys follow the target), the state records the new primary, and the connections that named the first primary
/// are rewired to it.
struct SwitchoverWorkflow {
    var cell: String
    /// `--to`: the member to promote; the cell's first standby when nil.
    var to: String?
    /// How long the members have to act, in seconds; the order expires then.
    var timeout: Int
    var context: CommandContext

    /// One member of the cell: its copy (`.0` rendered as the primary), its replication name and what the state records.
    struct Member {
        var copy: Int
        var resource: ResourceState
        var name: String { DatabaseReplication.standbyName(copy: copy) }
        var server: String { ResourceBody(resource.attributes).name }
        var port: Int? { ResourceBody(resource.attributes).spec["port"]?.intValue }
        var label: String { "\(name) (\(server) in \(resource.cloud))" }
    }

    struct Setup {
        var application: String
        var members: [Member]
        var first: Member
        var current: Member
        var target: Member
        var leg: ResourceState
        /// The archive's owner in the bucket: the first primary's server, whose prefix holds the cell's objects.
        var owner: String
    }

    func prepare(_ recorded: State) throws(CommandFailure) -> Setup {
        let servers = recorded.resources.filter { $0.address.kind == .databaseServer }
        let members = servers.filter { ResourceBody($0.attributes).cellName == cell }.compactMap { resource -> Member? in
            guard let copy = Int(resource.address.rawValue.split(separator: ".").last ?? "") else { return nil }
            return Member(copy: copy, resource: resource)
        }.sorted { $0.copy < $1.copy }
        guard let first = members.first, first.copy == 0 else {
            let names = Set(servers.compactMap { ResourceBody($0.attributes).cellName }).sorted()
            throw CommandFailure("the state records no database server of '\(cell)'\(Suggestion.didYouMean(cell, in: names).replacingQuotes)")
        }
        let body = ResourceBody(first.resource.attributes)
        let engine = body.spec["engine"]?.stringValue ?? ""
        guard Engine(named: engine) == .postgresql else {
            throw CommandFailure("refused: switchover moves the primary of a PostgreSQL cell to its standby; \(cell) runs \(engine.isEmpty ? "an unknown engine" : engine) (docs/databases.md, \"Switchover\")")
        }
        guard members.count > 1 else {
            throw CommandFailure("refused: \(cell) has no standby to switch over to (spec.standbys is 0)")
        }
        if let lost = members.first(where: { recorded.lost.contains($0.resource.cloud) }) {
            throw CommandFailure("refused: \(lost.resource.cloud) is recorded as lost; a cell there moves with 'mcloud failover', not a switchover")
        }
        let current = recorded.primaries[first.resource.address].flatMap { address in members.first { $0.resource.address == address } } ?? first
        let target: Member
        if let to {
            guard let named = members.first(where: { $0.name == to }) else {
                let listing = members.map { "\($0.name)\($0.copy == current.copy ? " (the primary)" : "")" }.joined(separator: ", ")
                throw CommandFailure("--to: \(cell) has no member '\(to)'; its members are \(listing). A primary moves to another cloud only by 'mcloud failover': two sites cannot tell a lost peer from a cut link, so mcloud never promotes across clouds on its own (docs/dr.md)")
            }
            guard named.copy != current.copy else { throw CommandFailure("--to: \(named.label) is the primary of \(cell) already; nothing to do") }
            target = named
        } else if let standby = members.first(where: { $0.copy != current.copy }) {
            target = standby
        } else {
            throw CommandFailure("refused: \(cell) has no standby to switch over to")
        }
        let legs = recorded.resources.filter { $0.address.kind == .backupBucket && ResourceBody($0.attributes).string("source") == first.resource.address.rawValue }
        guard let leg = legs.first, let backup = body.backup, let location = backup.location,
              PostgreSQLArchive.canArchive(to: DatabaseVM.Bucket(location, secrets: [])), body.replication != nil else {
            throw CommandFailure("refused: \(cell) does not archive into a DR leg over TLS with keys that may read it, and its members take switchover orders from that bucket only (docs/databases.md, \"Switchover\")")
        }
        guard let application = recorded.application else { throw CommandFailure("the state names no application: apply first") }
        return Setup(application: application, members: members, first: first, current: current, target: target, leg: leg, owner: first.server)
    }

    /// The target's row in the current primary's newest replication report, refused unless it follows within the lag
    /// limit in a report the current primary wrote recently.
    func caughtUp(_ setup: Setup, lister: any BackupLister) async throws(CommandFailure) -> StandbyLag {
        let key = DatabaseUserData.replicationKey(server: setup.owner)
        let bytes: [UInt8]?
        do throws(ProviderError) {
            bytes = try await lister.object(key, in: setup.leg)
        } catch {
            throw CommandFailure("reading the replication report of \(cell): \(error.message)")
        }
        guard let bytes else {
            throw CommandFailure("refused: no replication report at s3://\(setup.leg.providerID)/\(key); the primary writes one every minute once its standbys follow it")
        }
        guard let report = ReplicationStatus(json: String(decoding: bytes, as: UTF8.self)) else {
            throw CommandFailure("refused: s3://\(setup.leg.providerID)/\(key) is not a replication report mcloud's report job writes")
        }
        let now = context.clock.nowSeconds
        guard report.server == setup.current.server else {
            throw CommandFailure("refused: the replication report of \(cell) is written by \(report.server), but the state records \(setup.current.label) as its primary: another switchover may be under way, or the state is behind the cell")
        }
        guard now - report.at <= ReplicationStatus.staleAfter else {
            throw CommandFailure("refused: the replication report of \(cell) is \(now - report.at) s old; its primary \(setup.current.label) is down or cannot reach the bucket (a lost primary moves with 'mcloud failover')")
        }
        guard let row = report.standbys.first(where: { $0.name == setup.target.name }), row.follows else {
            throw CommandFailure("refused: \(setup.target.label) does not follow the primary in its report of \(BackupStatus.text(report.at)); a switchover to it would lose what it has not received")
        }
        guard row.lagSeconds <= ReplicationStatus.lagLimit else {
            throw CommandFailure("refused: \(setup.target.label) is \(Int(row.lagSeconds)) s behind the primary (at most \(Int(ReplicationStatus.lagLimit)) s); wait until it catches up")
        }
        return row
    }

    /// The target's address where its name may not resolve from the other members: the first IPv4 address its
    /// provider reports for it, nil when it reports none.
    func targetAddress(_ setup: Setup, provider: any ResourceProvider) async throws(CommandFailure) -> String? {
        do throws(ProviderError) {
            let observed = try await provider.refresh(application: setup.application, desired: [], recorded: [setup.target.resource])
            let attributes = observed.first { $0.address == setup.target.resource.address }?.attributes
            return attributes.flatMap { ResourceBody($0).reportedAddresses.first { $0.contains(".") } }
        } catch {
            throw CommandFailure("reading \(setup.target.label): \(error.message)")
        }
    }

    func order(_ setup: Setup, address: String?) throws(CommandFailure) -> SwitchoverOrder {
        guard let port = setup.target.port else { throw CommandFailure("the state records no port for \(setup.target.label)") }
        let now = context.clock.nowSeconds
        return SwitchoverOrder(
            application: setup.application, cell: cell, serial: now, notAfter: now + timeout, primary: setup.current.name, target: setup.target.name,
            targetHost: setup.target.server, targetPort: port, targetAddress: address, members: setup.members.map(\.name)
        )
    }

    /// Writes the signature first: a member that reads the order finds its signature there.
    func send(_ order: SwitchoverOrder, root: SecretRoot, setup: Setup, lister: any BackupLister) async throws(CommandFailure) {
        let signature: String
        do throws(SecretsError) {
            signature = try order.signature(root: root)
        } catch {
            throw CommandFailure("signing the switchover order: \(error.description)")
        }
        do throws(ProviderError) {
            try await lister.put(SwitchoverOrder.signatureKey(owner: setup.owner), Array(signature.utf8), contentType: "text/plain", in: setup.leg)
            try await lister.put(SwitchoverOrder.key(owner: setup.owner), order.document, contentType: "application/json", in: setup.leg)
        } catch {
            throw CommandFailure("writing the switchover order into s3://\(setup.leg.providerID): \(error.message); nothing was switched")
        }
    }

    /// What a member wrote of its part: `SwitchoverOrder.stepKey`'s object.
    struct Step {
        var step: String
        var lsn: String?
        var error: String?
    }

    /// What the members did: the primary's demote, the target's promotion, and each other standby's step (nil when it
    /// wrote none in time).
    struct Outcome {
        var demoted: Step
        var promoted: Step
        var others: [(member: String, step: Step?)]
    }

    /// Polls the members' steps every 2 s until the target promoted (its step), or a member failed, or `timeout`; then
    /// the other standbys' steps, for what is left of `timeout` but at least 60 s. A standby that did not follow does
    /// not undo the switchover: the target is the primary, and the outcome says which standby stayed behind.
    func await(_ order: SwitchoverOrder, setup: Setup, lister: any BackupLister) async throws(CommandFailure) -> Outcome {
        func step(_ member: String) async throws(ProviderError) -> Step? {
            guard let bytes = try await lister.object(SwitchoverOrder.stepKey(owner: setup.owner, serial: order.serial, member: member), in: setup.leg) else { return nil }
            guard let document = try? JSONParser.parse(bytes), let name = document["step"]?.stringValue else {
                throw ProviderError(.failed, "the step \(member) wrote is not one mcloud-switchover writes")
            }
            return Step(step: name, lsn: document["lsn"]?.stringValue, error: document["error"]?.stringValue)
        }
        let started = context.clock.nowSeconds
        let poller = Poller(backoff: .constant(2), timeout: Double(timeout), clock: context.clock)
        var demoted: Step?
        let (first, promoted): (Step, Step)
        do throws(ProviderError) {
            (first, promoted) = try await poller.poll({ () async throws(ProviderError) -> (Step, Step)? in
                if demoted == nil, let primary = try await step(order.primary) {
                    guard primary.step == "demoted" else {
                        throw ProviderError(.failed, "\(setup.current.label) did not demote (\(primary.step)): \(primary.error ?? "no reason given"); it is still the primary")
                    }
                    demoted = primary
                }
                guard let demoted, let target = try await step(order.target) else { return nil }
                guard target.step == "promoted" else {
                    throw ProviderError(.failed, "\(setup.target.label) did not promote (\(target.step)): \(target.error ?? "no reason given"); \(setup.current.label) demoted at LSN \(demoted.lsn ?? "?") and the cell has no primary: switch it back with --to \(order.primary)")
                }
                return (demoted, target)
            }, stopped: { stop in
                let seen = demoted.map { "\(setup.current.label) demoted at LSN \($0.lsn ?? "?") but \(setup.target.label) has not promoted" }
                    ?? "\(setup.current.label) has not demoted (it is still the primary; the order expires unread)"
                return switch stop {
                case .timedOut: ProviderError(.failed, "no switchover within \(timeout) s (--timeout): \(seen); the members' timers read the bucket every 10 s (journalctl -u mcloud-switchover on them)")
                case .cancelled: ProviderError(.failed, "the wait for the switchover was cancelled: \(seen)")
                }
            })
        } catch {
            throw CommandFailure(error.message)
        }
        let others = order.members.filter { $0 != order.primary && $0 != order.target }
        var steps: [String: Step] = [:]
        let left = max(60, timeout - (context.clock.nowSeconds - started))
        _ = try? await Poller(backoff: .constant(2), timeout: Double(left), clock: context.clock).poll({ () async throws(ProviderError) -> Bool? in
            for member in others where steps[member] == nil {
                if let found = try await step(member) { steps[member] = found }
            }
            return steps.count == others.count ? true : nil
        }, stopped: { _ in ProviderError(.failed, "not every standby wrote its step") })
        return Outcome(demoted: first, promoted: promoted, others: others.map { ($0, steps[$0]) })
    }
}
