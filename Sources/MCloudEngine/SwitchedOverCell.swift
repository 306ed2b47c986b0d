public import MCloudProvider

/// A database cell whose primary a switchover moved (`State.primaries`): its members hold the roles their user data
/// gave them at create, which the state alone corrects. A member made again, or one deleted, would break that: copy
/// `.0` booted afresh is a primary beside the member that is the primary now, and deleting the member that is the
/// primary drops the cell's data with it. So a plan that would is refused until the cell is switched back.
public enum SwitchedOverCell {
    /// Why `changes` cannot be carried out on the switched-over cells of `primaries`; nil when they can. Clouds a
    /// failover took as lost are left out: their members are cleaned up once the cloud is back.
    public static func conflict(_ changes: [ResourceChange], primaries: [ResourceAddress: ResourceAddress], lost: Set<String>) -> String? {
        guard !primaries.isEmpty else { return nil }
        for change in changes where change.address.kind == .databaseServer && !lost.contains(change.cloud) && [.create, .replace, .delete].contains(change.action) {
            let cell = base(change.address)
            guard let (first, current) = primaries.first(where: { base($0.key) == cell }) else { continue }
            let verb = change.action == .delete ? "delete" : change.action == .create ? "make" : "replace"
            return "cannot \(verb) \(change.address): its cell was switched over to \(current) (the state's primaries), and its members keep the roles "
                + "they were made with; switch the cell back first (mcloud switchover CELL --to standby_0, the first primary \(first))"
        }
        return nil
    }

    /// The address without its copy: `openstack.dc-a.DatabaseServer.shop.ledger` of `....ledger.1`.
    private static func base(_ address: ResourceAddress) -> Substring {
        address.rawValue[..<(address.rawValue.lastIndex(of: ".") ?? address.rawValue.endIndex)]
    }
}
