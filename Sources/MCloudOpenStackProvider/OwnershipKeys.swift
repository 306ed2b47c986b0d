import MCloudCore
import MCloudOpenStack
import MCloudProvider

/// The metadata keys and tags that mark what mcloud made in an OpenStack project, and which engine address each
/// thing is. Several catalog clouds can share one project, so every lookup also checks the address's cloud.
enum OwnershipKeys {
    static let address = "mcloud-address"
    static let zone = "mcloud-zone"

    /// The metadata and tags of what mcloud makes for `body`: managed-by, application and cell, then `extra` and the
    /// address by key.
    static func marks(_ body: ResourceBody, extra: [String: String] = [:]) -> ResourceMarks {
        let application = body.application, cell = body.cell ?? body.name
        let more = extra.merging([address: body.address.rawValue]) { first, _ in first }.sorted { $0.key < $1.key }
        return ResourceMarks(
            metadata: [.init(managedBy, ResourceLabels.manager), .init("application", application), .init("cell", cell)] + more.map { .init($0.key, $0.value) },
            tags: [managedTag, "application:\(application)", "cell:\(cell)"]
        )
    }

    /// The tag of everything mcloud made, which Nova lists by.
    static let managedTag = "\(managedBy):\(ResourceLabels.manager)"

    /// The metadata pairs every listing of `application` filters on.
    static func filter(application: String) -> [String: String] {
        [managedBy: ResourceLabels.manager, "application": application]
    }

    /// The metadata pair of everything mcloud made.
    static let managedBy = "managed-by"

    /// Neutron tags for the same facts (tags, not metadata, are what Neutron filters on).
    static func tags(application: String) -> [String] {
        [managedTag, ResourceMarks.tag("application:\(application)")]
    }

    static func addressTag(_ address: String) -> String { "address:\(address)" }

    /// The name part of `address` when it is the address of a resource of `kind` in `cloud`, else nil.
    static func name(of address: String, cloud: String, kind: ResourceKind) -> String? {
        let prefix = ResourceAddress(provider: .openstack, cloud: cloud, kind: kind, name: "").rawValue
        return address.hasPrefix(prefix) ? String(address.dropFirst(prefix.count)) : nil
    }

    /// Whether `address` is a resource of `kind` in `cloud`.
    static func matches(_ address: String, cloud: String, kind: ResourceKind) -> Bool {
        name(of: address, cloud: cloud, kind: kind) != nil
    }
}

extension ResourceBody {
    /// What refresh reports for a resource found in the cloud that neither the manifests nor the state name:
    /// enough for the engine to show and delete it.
    static func orphan(kind: ResourceKind, address: ResourceAddress, name: String, cloud: String) -> ResourceBody {
        .infrastructure(kind: kind, address: address, name: name, cloud: cloud, spec: .object([]))
    }
}
