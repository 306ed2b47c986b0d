import MCloudCore

/// A Nova flavor: what a server gets.
public struct Flavor: Sendable, Hashable {
    public var id: String
    public var name: String
    public var vcpus: Int
    public var ramMiB: Int
    public var diskGiB: Int
    public var disabled: Bool

    public init(id: String, name: String, vcpus: Int, ramMiB: Int, diskGiB: Int, disabled: Bool = false) {
        self.id = id
        self.name = name
        self.vcpus = vcpus
        self.ramMiB = ramMiB
        self.diskGiB = diskGiB
        self.disabled = disabled
    }

    static func decode(_ item: JSONValue) -> Flavor? {
        guard let id = item["id"]?.stringValue, let name = item["name"]?.stringValue, let vcpus = item["vcpus"]?.intValue,
              let ram = item["ram"]?.intValue else { return nil }
        return Flavor(
            id: id, name: name, vcpus: vcpus, ramMiB: ram, diskGiB: item["disk"]?.intValue ?? 0,
            disabled: item["OS-FLV-DISABLED:disabled"] == .bool(true)
        )
    }

    /// The smallest enabled flavor with at least `vcpus` and `ramMiB` (fewest vCPUs, then least RAM, then disk,
    /// then name, so the choice is stable). The error says what the largest flavor offers.
    public static func smallest(fitting vcpus: Int, ramMiB: Int, in flavors: [Flavor]) throws(OpenStackError) -> Flavor {
        let usable = flavors.filter { !$0.disabled }
        let fitting = usable.filter { $0.vcpus >= vcpus && $0.ramMiB >= ramMiB }
        if let best = fitting.min(by: { ($0.vcpus, $0.ramMiB, $0.diskGiB, $0.name) < ($1.vcpus, $1.ramMiB, $1.diskGiB, $1.name) }) {
            return best
        }
        let need = "\(vcpus) vCPU and \(ramMiB) MiB RAM"
        guard let largest = usable.max(by: { ($0.vcpus, $0.ramMiB) < ($1.vcpus, $1.ramMiB) }) else {
            throw .noFittingFlavor("no flavor has \(need): the cloud offers no enabled flavors")
        }
        throw .noFittingFlavor("no flavor has \(need); the largest is \(largest.name) with \(largest.vcpus) vCPU and \(largest.ramMiB) MiB")
    }
}
