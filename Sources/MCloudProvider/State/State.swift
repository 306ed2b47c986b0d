import Foundation
import MCloudCore

/// What mcloud has created: the resources it owns, under a lineage that names this state for its whole life and a
/// serial that grows with every write, so a backend can refuse a write based on an older or a foreign state.
public struct State: Sendable, Hashable {
    /// The format this mcloud writes and the newest it reads; format 1 (no `placement`) is read too.
    public static let formatVersion = 2

    /// A UUID set when the state is first created and never changed.
    public let lineage: String
    /// 0 for a state never written; a backend accepts a write only with a serial above the stored one.
    public private(set) var serial: Int
    /// The application whose resources these are, set by the first apply: a state holds one application, and a
    /// plan of another one against it would delete everything the first created.
    public var application: String?
    /// Where the last complete apply placed the application and what that cost; nil before one (and in states of
    /// format 1, written before mcloud recorded it), and after a destroy.
    public var placement: AppliedPlacement?
    /// The clouds a failover took as gone (`mcloud failover`), sorted: plans place nothing there, read nothing from
    /// them and delete nothing in them; their resources stay recorded until `--forget-lost` or `--recovered`.
    public var lost: [String] = []
    /// Resources a failover keeps though the manifests no longer want them, sorted: the DR legs its new primaries
    /// restored from, which hold the only copies of the lost servers' data. Plans neither change nor delete them;
    /// destroy does. Only recorded resources are written.
    public var retained: [ResourceAddress] = []
    /// The member each switched-over database cell's primary is now (`mcloud switchover`), by the address of the server
    /// rendered as its primary (`.0`): connections to the cell go to the member named here. A cell switched back to
    /// its first primary has no entry; only recorded resources are written.
    public var primaries: [ResourceAddress: ResourceAddress] = [:]
    private var byAddress: [ResourceAddress: ResourceState]

    /// A new, empty state with a fresh lineage.
    public init() {
        self.init(lineage: UUID().uuidString.lowercased(), serial: 0, resources: [])
    }

    /// A state with the given parts; a later resource with the same address replaces an earlier one.
    public init(lineage: String, serial: Int, resources: [ResourceState]) {
        self.lineage = lineage
        self.serial = serial
        self.byAddress = Dictionary(resources.map { ($0.address, $0) }, uniquingKeysWith: { $1 })
    }

    /// The resources, sorted by address.
    public var resources: [ResourceState] {
        byAddress.values.sorted { $0.address < $1.address }
    }

    /// The resources in no order: for work that groups, counts or sorts them its own way, which need not pay for
    /// sorting 10,000 addresses first.
    public var unorderedResources: Dictionary<ResourceAddress, ResourceState>.Values {
        byAddress.values
    }

    /// The recorded addresses, in no order.
    public var addresses: Dictionary<ResourceAddress, ResourceState>.Keys {
        byAddress.keys
    }

    public subscript(address: ResourceAddress) -> ResourceState? {
        byAddress[address]
    }

    /// Adds a resource or replaces the one at its address.
    public mutating func record(_ resource: ResourceState) {
        byAddress[resource.address] = resource
    }

    /// Forgets a resource, returning what was recorded.
    @discardableResult
    public mutating func remove(address: ResourceAddress) -> ResourceState? {
        byAddress.removeValue(forKey: address)
    }

    /// This state with the serial of the next write; call it once per write.
    public func nextSerial() -> State {
        var next = self
        next.serial += 1
        return next
    }

    /// Deterministic JSON: fixed field order, resources sorted by address, attribute keys sorted, a final newline.
    public func serialized() -> String {
        String(decoding: serializedBytes(), as: UTF8.self)
    }

    /// The UTF-8 of `serialized()`, written into one buffer: what the backends store.
    public func serializedBytes() -> [UInt8] {
        var fields: [(String, JSONValue)] = [("format_version", .int(Self.formatVersion)), ("lineage", .string(lineage)), ("serial", .int(serial))]
        if let application { fields.append(("application", .string(application))) }
        if let placement { fields.append(("placement", placement.json)) }
        if !lost.isEmpty { fields.append(("lost", .array(lost.map(JSONValue.string)))) }
        let kept = retained.filter { byAddress[$0] != nil }
        if !kept.isEmpty { fields.append(("retained", .array(kept.map { .string($0.rawValue) }))) }
        let moved = primaries.filter { byAddress[$0.key] != nil && byAddress[$0.value] != nil }.sorted { $0.key < $1.key }
        if !moved.isEmpty { fields.append(("primaries", .object(moved.map { ($0.key.rawValue, .string($0.value.rawValue)) }))) }
        fields.append(("resources", .array(resources.map(\.json))))
        let document = JSONValue.object(fields)
        var bytes = document.serializedBytes()
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Reads a serialized state; `source` names it in errors (a file path, `state push FILE`).
    public static func parse(_ bytes: [UInt8], source: String) throws(StateError) -> State {
        let reader: FieldReader
        let version: Int
        do throws(FieldReader.Failure) {
            reader = try FieldReader.document(bytes)
            version = try reader.int("format_version")
        } catch {
            throw .corrupted(source: source, reason: error.message)
        }
        // The version first: a newer format may have any shape, and "upgrade" is the useful message then.
        guard version <= formatVersion else { throw .newerFormat(source: source, version: version) }
        do throws(FieldReader.Failure) {
            return try decode(reader, version: version)
        } catch {
            throw .corrupted(source: source, reason: error.message)
        }
    }

    private static func decode(_ reader: FieldReader, version: Int) throws(FieldReader.Failure) -> State {
        guard (1...formatVersion).contains(version) else {
            throw reader.failure("format_version", "\(version) is not a state format (this mcloud reads 1 to \(formatVersion))")
        }
        try reader.allowOnly(["format_version", "lineage", "serial", "application", "resources"] + (version >= 2 ? ["placement", "lost", "retained", "primaries"] : []))
        let lineage = try reader.string("lineage")
        guard UUID(uuidString: lineage) != nil else { throw reader.failure("lineage", "\"\(lineage)\" is not a UUID") }
        let serial = try reader.int("serial")
        guard serial >= 0 else { throw reader.failure("serial", "\(serial) is negative") }
        var resources: [ResourceState] = []
        var firstIndex: [ResourceAddress: Int] = [:]
        // Resources parse independently, on every core: a state of 10,000 resources is read on each plan.
        let items = try reader.array("resources")
        let parsed = Parallel.map(items.count) { range in
            range.map { index -> Result<ResourceState, FieldReader.Failure> in
                Result { () throws(FieldReader.Failure) -> ResourceState in try ResourceState.parse(items[index], path: "resources[\(index)]") }
            }
        }
        for (index, result) in parsed.enumerated() {
            let resource = try result.get()
            if let first = firstIndex[resource.address] {
                throw FieldReader.Failure(message: "resources[\(index)].address: \(resource.address) is also resources[\(first)]")
            }
            firstIndex[resource.address] = index
            resources.append(resource)
        }
        var state = State(lineage: lineage, serial: serial, resources: resources)
        if reader.has("application") { state.application = try reader.string("application") }
        if reader.has("placement") { state.placement = try AppliedPlacement.parse(try reader.value("placement"), path: "placement") }
        if reader.has("lost") {
            let names = try reader.array("lost").enumerated().map { index, item throws(FieldReader.Failure) -> String in
                guard let name = item.stringValue, !name.isEmpty else { throw FieldReader.Failure(message: "lost[\(index)]: not a cloud name") }
                return name
            }
            state.lost = Set(names).sorted()
        }
        if reader.has("retained") {
            let addresses = try reader.array("retained").enumerated().map { index, item throws(FieldReader.Failure) -> ResourceAddress in
                guard let address = item.stringValue, state[ResourceAddress(address)] != nil else {
                    throw FieldReader.Failure(message: "retained[\(index)]: not the address of a recorded resource")
                }
                return ResourceAddress(address)
            }
            state.retained = Set(addresses).sorted()
        }
        if reader.has("primaries") {
            let value = try reader.value("primaries")
            guard case .object(let pairs) = value else { throw FieldReader.Failure(message: "primaries: not an object") }
            for (first, current) in pairs {
                guard state[ResourceAddress(first)] != nil, let current = current.stringValue, state[ResourceAddress(current)] != nil else {
                    throw FieldReader.Failure(message: "primaries.\(first): not a pair of recorded resources' addresses")
                }
                state.primaries[ResourceAddress(first)] = ResourceAddress(current)
            }
        }
        return state
    }
}
