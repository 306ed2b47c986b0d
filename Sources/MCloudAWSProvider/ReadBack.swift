import MCloudAWS
import MCloudCore
import MCloudProvider

/// Builds refresh's documents in the shape of the desired bodies. What AWS reports overwrites the fields it can
/// read back; every other field comes from the body whose digest the resource's tag holds (the desired body when
/// it is unchanged, else the recorded one), so an untouched resource compares equal and an edited manifest shows
/// its change.
struct ReadBack {
    private let desired: [ResourceAddress: JSONValue]
    private let recorded: [ResourceAddress: JSONValue]

    init(desired: [DesiredResource], recorded: [ResourceState]) {
        self.desired = Dictionary(desired.map { ($0.address, $0.body) }, uniquingKeysWith: { first, _ in first })
        self.recorded = Dictionary(recorded.map { ($0.address, $0.attributes) }, uniquingKeysWith: { first, _ in first })
    }

    /// The body mcloud wants (or last wanted) at an address.
    func body(_ address: ResourceAddress) -> JSONValue? { desired[address] ?? recorded[address] }

    /// The body at the address a tag holds.
    func body(tagged address: String?) -> JSONValue? { address.flatMap { body(ResourceAddress($0)) } }

    func attributes(address: ResourceAddress, kind: ResourceKind, digest: String?, read: [([String], JSONValue)]) -> JSONValue {
        var document: JSONValue
        if let wanted = desired[address], AWSTag.digest(wanted) == digest {
            document = wanted
        } else if let known = recorded[address] {
            document = known
        } else {
            document = ResourceBody.infrastructure(kind: kind, address: address).document
        }
        for (path, value) in read { document = ResourceBody.setting(path, to: value, in: document) }
        return document
    }
}
