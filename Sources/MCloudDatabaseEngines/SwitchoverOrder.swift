import MCloudCore
public import MCloudSecrets

/// An order to move a PostgreSQL cell's primary to one of its standbys (docs/databases.md, "Switchover"), as the
/// operator's machine writes it into the cell's DR bucket beside its archive, with an Ed25519 signature
/// (`SwitchoverKey`). Every member's `mcloud-switchover` reads it every 10 s, checks the signature against the public
/// key in its user data, the cell and the deadline, and does its own part once: the named primary demotes, the target
/// promotes once the demote's result is there. A serial that is not above the last one a member acted on is ignored.
public struct SwitchoverOrder: Sendable, Hashable {
    public var application: String
    /// The database cell, as the members' `ServerAccess` names it (`payments-db@eu`).
    public var cell: String
    /// Above every earlier order of the cell: the time the order was made, in UTC seconds.
    public var serial: Int
    /// A member acts on the order only until then, UTC seconds.
    public var notAfter: Int
    /// The member that is the primary now, by its member name (`standby_0` for the first primary).
    public var primary: String
    /// The standby to promote: its member name, its server name (a name of its certificate), port and, where its
    /// name does not resolve, its address.
    public var target: String
    public var targetHost: String
    public var targetPort: Int
    public var targetAddress: String?
    /// Every member's name, the target's included: the new primary's synchronous quorum is the others.
    public var members: [String]

    public init(
        application: String, cell: String, serial: Int, notAfter: Int, primary: String, target: String, targetHost: String, targetPort: Int,
        targetAddress: String? = nil, members: [String]
    ) {
        self.application = application
        self.cell = cell
        self.serial = serial
        self.notAfter = notAfter
        self.primary = primary
        self.target = target
        self.targetHost = targetHost
        self.targetPort = targetPort
        self.targetAddress = targetAddress
        self.members = members
    }

    /// The order's object, under the archive's owner (`<primary server>/`), and its signature's beside it.
    public static func key(owner: String) -> String { "\(owner)/control/switchover.json" }
    public static func signatureKey(owner: String) -> String { "\(owner)/control/switchover.sig" }
    /// What member `member` wrote of its part in order `serial`: `SwitchoverStep`.
    public static func stepKey(owner: String, serial: Int, member: String) -> String { "\(owner)/control/\(serial).\(member).json" }

    /// The exact bytes that are signed and written: one line of JSON, keys in a fixed order.
    public var document: [UInt8] {
        var pairs: [(String, JSONValue)] = [
            ("application", .string(application)), ("cell", .string(cell)), ("serial", .int(serial)), ("notAfter", .int(notAfter)),
            ("primary", .string(primary)), ("target", .string(target)), ("targetHost", .string(targetHost)), ("targetPort", .int(targetPort)),
        ]
        if let targetAddress { pairs.append(("targetAddress", .string(targetAddress))) }
        pairs.append(("members", .array(members.map(JSONValue.string))))
        return Array((JSONValue.object(pairs).serialized(pretty: false) + "\n").utf8)
    }

    /// The signature of `document` with the cell's key, base64 on one line as the object holds it.
    public func signature(root: SecretRoot) throws(SecretsError) -> String {
        try SwitchoverKey.signature(root: root, application: application, cell: cell, of: document)
    }
}
