import MCloudCore
import MCloudOpenStack
import MCloudProvider

/// `Volume` as a Cinder volume: name from the metadata, size, the catalog zone where the cloud has one of that
/// name; ownership and the address in the volume's metadata. Reads back the size; the zone asked for is kept in the
/// metadata (`mcloud-zone`), since the cloud may have put it in its default zone.
struct VolumeKind: Sendable {
    static let kind = ResourceKind.volume
    let cloud: String
    let connection: OpenStackConnection
    /// The catalog's `spec.vm.encryptedVolumeType`, every new volume's type; nil: the cloud's default.
    var encryptedVolumeType: String? = nil

    func observe(_ inventory: Inventory, bases: [ResourceAddress: ResourceBody]) -> [ObservedResource] {
        inventory.volumes.compactMap { volume in
            guard let text = Inventory.address(of: volume), OwnershipKeys.matches(text, cloud: cloud, kind: Self.kind) else { return nil }
            let address = ResourceAddress(text)
            let base = bases[address] ?? .orphan(kind: Self.kind, address: address, name: volume.name, cloud: cloud)
            let body = base.settingSpec(["sizeGiB"], .int(volume.sizeGiB)).settingSpec(["zone"], volume.metadata[OwnershipKeys.zone].map(JSONValue.string))
            return ObservedResource(address: address, providerID: volume.id, attributes: body.document, isBeingDeleted: volume.status == "deleting")
        }
    }

    static func replacementReasons(desired: ResourceBody, current: ResourceBody) -> [String] {
        var reasons: [String] = []
        if let wanted = desired.int("sizeGiB"), let now = current.int("sizeGiB"), wanted < now {
            reasons.append("spec.sizeGiB cannot shrink (\(now) -> \(wanted) GiB): Cinder only extends volumes")
        }
        if desired.string("zone") != current.string("zone") { reasons.append("spec.zone cannot change on a volume") }
        return reasons
    }

    /// The live volume made for `address`, if any.
    static func find(_ address: String, in cinder: CinderClient) async throws(OpenStackError) -> Volume? {
        try await cinder.volumes(metadata: [OwnershipKeys.managedBy: ResourceLabels.manager, OwnershipKeys.address: address]).first { $0.status != "deleting" }
    }

    func create(_ body: ResourceBody) async throws(OpenStackError) -> ObservedResource {
        let cinder = try await connection.clients().cinder
        var volume: Volume
        if let existing = try await Self.find(body.address.rawValue, in: cinder) {
            volume = existing
        } else {
            let zone = body.string("zone")
            volume = try await cinder.createVolume(
                name: body.name, sizeGiB: body.int("sizeGiB") ?? 1, marks: OwnershipKeys.marks(body, extra: zone.map { [OwnershipKeys.zone: $0] } ?? [:]),
                availabilityZone: try await connection.volumeZone(zone), volumeType: encryptedVolumeType
            )
        }
        if volume.status != "in-use" { volume = try await cinder.waitForStatus(volume.id, "available") }
        return ObservedResource(address: body.address, providerID: volume.id, attributes: body.document)
    }

    func update(_ body: ResourceBody, recorded: ResourceState) async throws(OpenStackError) -> ObservedResource {
        let cinder = try await connection.clients().cinder
        let volume = try await cinder.volume(recorded.providerID)
        if let wanted = body.int("sizeGiB"), wanted > volume.sizeGiB {
            try await cinder.extendVolume(volume.id, toGiB: wanted)
            _ = try await cinder.waitForStatus(volume.id, volume.status == "in-use" ? "in-use" : "available")
        }
        return ObservedResource(address: body.address, providerID: volume.id, attributes: body.document)
    }

    /// Waits for Nova to let go of the volume (its server is deleted first), then deletes it.
    func delete(_ recorded: ResourceState) async throws(OpenStackError) {
        let cinder = try await connection.clients().cinder
        try await cinder.waitUntilDetached(recorded.providerID)
        try await cinder.deleteVolume(recorded.providerID)
    }
}
