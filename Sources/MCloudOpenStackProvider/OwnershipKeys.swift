import MCloudOpenStack

/// The metadata keys and tags that mark what mcloud made in an OpenStack project, and which engine address each
/// thing is. Several catalog clouds can share one project, so every lookup also checks the address's cloud.
enum OwnershipKeys {
    static let address = "mcloud-address"
    static let zone = "mcloud-zone"

    static func ownership(_ body: ResourceBody, extra: [String: String] = [:]) -> Ownership {
        Ownership(application: body.application, cell: body.cell, extra: extra.merging([address: body.address]) { first, _ in first })
    }

    /// The metadata pairs every listing of `application` filters on.
    static func filter(application: String) -> [String: String] {
        ["managed-by": "mcloud", "application": application]
    }

    /// Neutron tags for the same facts (tags, not metadata, are what Neutron filters on).
    static func tags(application: String) -> [String] {
        [Ownership.managedTag, Ownership.tag("application:\(application)")]
    }

    static func addressTag(_ address: String) -> String { "address:\(address)" }

    /// Whether `address` is a resource of `kind` in `cloud`.
    static func matches(_ address: String, cloud: String, kind: String) -> Bool {
        address.hasPrefix("openstack.\(cloud).\(kind).")
    }
}
