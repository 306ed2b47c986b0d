public import MCloudCore
public import MCloudProvider

/// What a restore drill did and found (`mcloud drill`): the backup it restored and from where, the scratch server it
/// made in which cloud, what it deleted again and what it could not, the RPO and RTO, and why it failed if it did.
/// `DrillView` prints it; `json` is `drill --json`.
public struct DrillReport: Sendable, Hashable {
    /// A scratch resource the drill could not delete, and why; the next apply deletes it (it carries the labels).
    public struct Leftover: Sendable, Hashable {
        public var address: ResourceAddress
        public var error: String

        public init(address: ResourceAddress, error: String) {
            self.address = address
            self.error = error
        }
    }

    public var cell: String
    /// The cloud restored into.
    public var cloud: String
    public var recoveryPoint: RecoveryPoint
    public var backupSize: Int
    public var scratchServer: ResourceAddress
    /// The backup's age when the drill began, in seconds.
    public var rpoSeconds: Int
    /// From making the scratch server to its engine answering with the data restored; nil when it did not.
    public var rtoSeconds: Int?
    public var made: [ResourceAddress] = []
    public var deleted: [ResourceAddress] = []
    public var leftovers: [Leftover] = []
    public var failure: String?

    public init(cell: String, cloud: String, recoveryPoint: RecoveryPoint, backupSize: Int, scratchServer: ResourceAddress, rpoSeconds: Int) {
        self.cell = cell
        self.cloud = cloud
        self.recoveryPoint = recoveryPoint
        self.backupSize = backupSize
        self.scratchServer = scratchServer
        self.rpoSeconds = rpoSeconds
    }

    /// Restored, served, and nothing left behind.
    public var passed: Bool { failure == nil && rtoSeconds != nil && leftovers.isEmpty }

    public static let formatVersion = "1.0"

    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("format_version", .string(Self.formatVersion)), ("cell", .string(cell)), ("cloud", .string(cloud)), ("passed", .bool(passed)),
            ("recovery_point", RecoveryPointJSON.json(recoveryPoint)), ("backup_size_bytes", .int(backupSize)),
            ("scratch_server", .string(scratchServer.rawValue)), ("rpo_seconds", .int(rpoSeconds)),
            ("rto_seconds", rtoSeconds.map(JSONValue.int) ?? .null),
            ("made", .array(made.map { .string($0.rawValue) })), ("deleted", .array(deleted.map { .string($0.rawValue) })),
            ("left_behind", .array(leftovers.map { .object([("address", .string($0.address.rawValue)), ("error", .string($0.error))]) })),
        ]
        fields.append(("failure", failure.map(JSONValue.string) ?? .null))
        return .object(fields)
    }
}

/// A recovery point in the reports' JSON.
enum RecoveryPointJSON {
    static func json(_ point: RecoveryPoint) -> JSONValue {
        .object([
            ("cloud", .string(point.location.cloud)), ("bucket", .string(point.location.bucket)), ("object", .string(point.object)),
            ("taken_at", .string(point.takenAt)),
        ])
    }
}
