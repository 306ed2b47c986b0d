/// How much acknowledged data a database cell can lose as its placement delivers it (docs/databases.md, "Recovery
/// points"): losing the primary's VM inside its cloud, where its standbys take over, and losing the whole cloud, where
/// the DR leg in another cloud is what is left. Written by the engine catalog, shown by `plan` beside the cell.
public struct RecoveryObjective: Sendable, Hashable {
    public struct Bound: Sendable, Hashable {
        /// At most this many seconds of acknowledged commits lost; nil when the engine gives no bound.
        public var seconds: Int?
        /// What gives the bound, in a few words: `synchronous standby`, `WAL archived within 30 s`.
        public var how: String

        public init(seconds: Int?, how: String) {
            self.seconds = seconds
            self.how = how
        }
    }

    /// With standbys: what a standby taking over loses. Nil without standbys.
    public var inCloud: Bound?
    /// With a DR leg: what restoring its newest point in another cloud loses. Nil without one.
    public var disasterRecovery: Bound?

    public init(inCloud: Bound?, disasterRecovery: Bound?) {
        self.inCloud = inCloud
        self.disasterRecovery = disasterRecovery
    }
}
