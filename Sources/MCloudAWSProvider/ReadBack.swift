import MCloudAWS
import MCloudCore
import MCloudProvider

/// Builds refresh's documents in the shape of the desired bodies. What AWS reports overwrites the fields it can
/// read back; every other field comes from the body whose digest the resource's tag holds (the desired body when
/// it is unchanged, else the recorded one), so an untouched resource compares equal and an edited manifest shows
/// its change.
struct ReadBack {
    private let desired: [String: JSONValue]
    private let recorded: [String: JSONValue]

    init(desired: [DesiredResource], recorded: [ResourceState]) {
        self.desired = Dictionary(desired.map { ($0.address, $0.body) }, uniquingKeysWith: { first, _ in first })
        self.recorded = Dictionary(recorded.map { ($0.address, $0.attributes) }, uniquingKeysWith: { first, _ in first })
    }

    /// The body mcloud wants (or last wanted) at an address.
    func body(_ address: String) -> JSONValue? { desired[address] ?? recorded[address] }

    func attributes(address: String, kind: String, digest: String?, read: [([String], JSONValue)]) -> JSONValue {
        var document: JSONValue
        if let wanted = desired[address], ResourceBody.digest(wanted) == digest {
            document = wanted
        } else if let known = recorded[address] {
            document = known
        } else {
            document = .object([
                ("apiVersion", .string("infrastructure.mcloud.io/v1")), ("kind", .string(kind)), ("metadata", .object([("address", .string(address))])),
            ])
        }
        for (path, value) in read { document = ResourceBody.setting(path[...], to: value, in: document) }
        return document
    }
}
