public import MCloudCore
public import MCloudProvider

/// A failover's restores: each database cell whose primary the state records in a lost cloud gets its new primary
/// server made with `spec.restore`, the newest backup of the lost server in the cell's DR leg, so it boots with
/// the data. A cell without a DR leg (no `backup.disasterRecovery`: a cache that rebuilds) starts empty, and says so.
/// What cannot be delivered is refused before anything changes: a leg lost with its primary, a new primary that
/// would be a managed engine, a lost primary that was one.
public enum RecoveryPoints {
    /// A cell to restore: its new primary, the primary it replaces and the DR leg that holds that one's backups;
    /// no leg for a cell that has none, which starts empty.
    public struct Need: Sendable {
        /// As plan names it: `accounts-db@ru`.
        public var cell: String
        public var server: ResourceAddress
        public var lostServer: ResourceState
        public var leg: ResourceState?

        /// The lost server's backups are under its name in the bucket (`<server>/<time>.<ext>`).
        public var prefix: String { ResourceBody(lostServer.attributes).name + "/" }
    }

    /// The recovery point a new server loads, and the server.
    public struct Point: Sendable, Hashable {
        public var server: ResourceAddress
        public var recoveryPoint: RecoveryPoint

        public init(server: ResourceAddress, recoveryPoint: RecoveryPoint) {
            self.server = server
            self.recoveryPoint = recoveryPoint
        }
    }

    /// The cells whose primary is in a `lost` cloud and whose new primary the state does not record yet (a re-run
    /// after an interruption finds those made already), sorted by cell.
    public static func needs(desired: [DesiredResource], state: State, lost: Set<String>) throws(EngineError) -> [Need] {
        func isPrimary(_ kind: ResourceKind, _ body: ResourceBody) -> Bool {
            kind == .managedDatabase || kind == .databaseServer && body.databaseRole == .primary
        }
        var lostPrimaries: [String: ResourceState] = [:]
        for resource in state.resources where lost.contains(resource.cloud) {
            let body = ResourceBody(resource.attributes)
            if let cell = body.cell, isPrimary(body.kind, body) { lostPrimaries[cell] = resource }
        }
        var needs: [Need] = []
        var problems: [String] = []
        for (cell, previous) in lostPrimaries.sorted(by: { $0.key < $1.key }) {
            let name = ResourceBody(previous.attributes).cellName ?? cell
            guard let next = desired.first(where: { ResourceBody($0.body).cell == cell && isPrimary($0.type, ResourceBody($0.body)) }) else { continue }
            guard state[next.address] == nil else { continue }
            let legs = state.resources.filter { $0.address.kind == .backupBucket && ResourceBody($0.attributes).cell == cell }
            if legs.isEmpty, ResourceBody(previous.attributes).backup?.location == nil {
                needs.append(Need(cell: name, server: next.address, lostServer: previous, leg: nil))
                continue
            }
            if next.type == .managedDatabase {
                problems.append("\(name): its new primary would be \(next.cloud)'s managed engine, which mcloud cannot load a backup into; a failover restores into database VMs")
                continue
            }
            if ResourceBody(previous.attributes).kind == .managedDatabase {
                problems.append("\(name): its lost primary was \(previous.cloud)'s managed engine, whose backups stay in that cloud; its DR leg holds no dump to restore")
                continue
            }
            guard let leg = legs.first(where: { !lost.contains($0.cloud) }) else {
                let where_ = legs.isEmpty ? "the state records no DR leg for it" : "its DR leg was in \(legs.map(\.cloud).sorted().joined(separator: ", ")), lost too"
                problems.append("\(name): nothing to restore it from: \(where_)")
                continue
            }
            needs.append(Need(cell: name, server: next.address, lostServer: previous, leg: leg))
        }
        guard problems.isEmpty else {
            throw EngineError("cannot fail over with the data:\n" + problems.map { "  " + $0 }.joined(separator: "\n"))
        }
        return needs
    }

    /// The newest of a leg's backups that the lost server took; nil when it holds none.
    public static func newest(_ backups: [BackupObject], for need: Need) -> BackupObject? {
        backups.filter { $0.key.hasPrefix(need.prefix) }.max { ($0.time, $0.key) < ($1.time, $1.key) }
    }

    /// A body without its recovery point: what the state records once the server is made.
    static func consumed(_ body: JSONValue) -> JSONValue {
        let read = ResourceBody(body)
        return read.restore == nil ? body : read.restoring(nil).document
    }

    /// `desired` with each point's `spec.restore` on its server.
    public static func applying(_ points: [Point], to desired: [DesiredResource]) -> [DesiredResource] {
        let byServer = Dictionary(points.map { ($0.server, $0) }, uniquingKeysWith: { first, _ in first })
        return desired.map { resource in
            guard let point = byServer[resource.address] else { return resource }
            var restored = resource
            restored.body = ResourceBody(resource.body).restoring(point.recoveryPoint).document
            return restored
        }
    }

    /// A failover must not replace a primary it keeps (a DR leg moving changes the server's user data): the new
    /// server would start empty. The reasons, one per such server.
    public static func dataLosses(_ plan: DeploymentPlan) -> [String] {
        plan.changes.filter { change in
            change.action == .replace && change.type == .databaseServer && change.recorded.map { ResourceBody($0.attributes).databaseRole == .primary } == true
        }.map { "\($0.address): a failover would replace this primary (\($0.reason)), and the new server would start without its data" }
    }

}
