import MCloudCore
import MCloudHTTP
import MCloudOpenStack
import MCloudProvider

/// `ManagedDatabase` as a Trove instance: datastore = engine, the datastore version equal to the spec's version
/// (or the newest `<version>.x`), the smallest flavor with the spec's vCPUs and memory, a data volume of
/// `size.storageGiB`, the first catalog zone where the cloud has it. Trove instances carry no metadata, so the name
/// says what it is: `mcloud.<application>.<cloud>.<metadata.name>`. Reads back engine, version, flavor size and
/// volume size; the rest (standbys, zones, port, DNS name, security group) comes from the state. Reports the
/// instance's addresses (`status.addresses`), which apply puts in the EndpointSlices and egress policies that name it.
/// A `mysql` instance's `spec.access` gets its users, databases and admitted addresses (`TroveAccess`), read back
/// from Trove's user list and the instance's `allowed_cidrs`.
struct ManagedDatabaseKind: Sendable {
    static let kind = ResourceKind.managedDatabase
    let cloud: String
    let connection: OpenStackConnection
    let resolver: HostResolver
    let access: TroveAccess

    /// Trove's addresses for the instance, else what its host name resolves to.
    func reachableAddresses(_ instance: DatabaseInstance) async -> [String] {
        guard instance.addresses.isEmpty, let hostname = instance.hostname else { return instance.addresses }
        return await resolver.ipv4Addresses(hostname)
    }

    static func instanceName(application: String, cloud: String, name: String) -> String {
        "mcloud.\(application).\(cloud).\(name)"
    }

    /// The address a Trove instance of this application and cloud stands for, from its name.
    func address(of instance: DatabaseInstance, application: String) -> ResourceAddress? {
        let prefix = Self.instanceName(application: application, cloud: cloud, name: "")
        guard instance.name.hasPrefix(prefix) else { return nil }
        return ResourceAddress(provider: .openstack, cloud: cloud, kind: Self.kind, name: String(instance.name.dropFirst(prefix.count)))
    }

    func observe(_ inventory: Inventory, application: String, bases: [ResourceAddress: ResourceBody]) async throws(OpenStackError) -> [ObservedResource] {
        let flavors = inventory.databases.isEmpty ? [] : try await connection.flavors()
        var observed: [ObservedResource] = []
        for instance in inventory.databases {
            guard let address = address(of: instance, application: application) else { continue }
            let name = OwnershipKeys.name(of: address.rawValue, cloud: cloud, kind: Self.kind) ?? ""
            var body = bases[address] ?? .orphan(kind: Self.kind, address: address, name: name, cloud: cloud)
            if let datastore = instance.datastore { body = body.settingSpec(["engine"], .string(datastore)) }
            if let version = instance.datastoreVersion {
                let wanted = body.string("version")
                body = body.settingSpec(["version"], .string(wanted.map { Self.version(version, satisfies: $0) } == true ? wanted ?? version : version))
            }
            if let flavor = flavors.first(where: { $0.id == instance.flavorID }) {
                let size = try await connection.reportedSize(spec: body.int("size", "vcpu"), memoryGiB: body.double("size", "memoryGiB"), actual: (flavor.vcpus, flavor.ramMiB))
                body = body.settingSpec(["size", "vcpu"], size.vcpu).settingSpec(["size", "memoryGiB"], size.memoryGiB)
            }
            if let volume = instance.volumeGiB { body = body.settingSpec(["size", "storageGiB"], .int(volume)) }
            body = body.reportingAddresses(await reachableAddresses(instance))
            if let wanted = body.databaseAccess, instance.status == "ACTIVE" {
                let trove = try await connection.clients().trove
                let found = TroveAccess.observed(wanted, users: try await trove.users(instance.id), allowedCIDRs: instance.allowedCIDRs)
                body = body.settingSpec([ResourceBody.DatabaseServerField.access(wanted).key], found.map { ResourceBody.DatabaseServerField.access($0).value })
            }
            observed.append(ObservedResource(
                address: address, providerID: instance.id, attributes: body.document, isBeingDeleted: ["SHUTDOWN", "DELETED"].contains(instance.status)
            ))
        }
        return observed
    }

    /// `16.4` satisfies `16`; `16` satisfies `16`.
    static func version(_ offered: String, satisfies wanted: String) -> Bool {
        offered == wanted || offered.hasPrefix(wanted + ".")
    }

    static func replacementReasons(desired: ResourceBody, current: ResourceBody) -> [String] {
        var reasons = ["engine", "version"].compactMap { field in
            desired.string(field) == current.string(field) ? nil : "spec.\(field) cannot change on a Trove instance"
        }
        if let wanted = desired.int("size", "storageGiB"), let now = current.int("size", "storageGiB"), wanted < now {
            reasons.append("spec.size.storageGiB cannot shrink (\(now) -> \(wanted) GiB): Trove only grows volumes")
        }
        if let wanted = desired.spec["zones"], let now = current.spec["zones"], !FieldDiff.same(wanted, now) {
            reasons.append("spec.zones cannot change on a Trove instance")
        }
        return reasons
    }

    func find(application: String, name: String, in trove: TroveClient) async throws(OpenStackError) -> DatabaseInstance? {
        try await trove.instance(named: Self.instanceName(application: application, cloud: cloud, name: name))
    }

    func create(_ body: ResourceBody) async throws(OpenStackError) -> ObservedResource {
        let trove = try await connection.clients().trove
        var instance: DatabaseInstance
        if let existing = try await find(application: body.application, name: body.name, in: trove) {
            instance = existing
        } else {
            let engine = body.string("engine") ?? ""
            let wanted = body.string("version") ?? ""
            let offered = try await trove.datastores()
            guard let versions = offered[engine] else {
                throw .resourceFailed("the cloud's Trove has no datastore \(engine) (it offers \(offered.keys.sorted().joined(separator: ", ")))")
            }
            guard let version = versions.filter({ Self.version($0, satisfies: wanted) }).max(by: Self.older) else {
                throw .resourceFailed("Trove datastore \(engine) has no version \(wanted) (it offers \(versions.sorted().joined(separator: ", ")))")
            }
            let flavor = try await connection.flavor(vcpu: body.int("size", "vcpu") ?? 1, memoryGiB: body.double("size", "memoryGiB") ?? 1)
            let zone = try await connection.computeZone(body.spec["zones"]?.arrayItems.first?.stringValue)
            instance = try await trove.createInstanceOnce(DatabaseRequest(
                name: Self.instanceName(application: body.application, cloud: cloud, name: body.name), flavorID: flavor.id,
                volumeGiB: body.int("size", "storageGiB") ?? 1, datastore: engine, version: version, availabilityZone: zone
            ))
        }
        if instance.status != "ACTIVE" { instance = try await trove.waitUntilActive(instance.id) }
        if body.databaseAccess != nil {
            try await access.apply(instance, application: body.application, wanted: body.databaseAccess, recorded: nil, trove: trove)
        }
        return ObservedResource(address: body.address, providerID: instance.id, attributes: body.reportingAddresses(await reachableAddresses(instance)).document)
    }

    /// Version names compared number by number (`16.10` is newer than `16.9`).
    static func older(_ left: String, _ right: String) -> Bool {
        let numbers = { (text: String) in text.split(separator: ".").map { Int($0) ?? 0 } }
        return numbers(left).lexicographicallyPrecedes(numbers(right))
    }

    /// Resizes to the flavor the spec now needs and grows the volume.
    func update(_ body: ResourceBody, recorded: ResourceState) async throws(OpenStackError) -> ObservedResource {
        let trove = try await connection.clients().trove
        let instance = try await trove.instance(recorded.providerID)
        let flavor = try await connection.flavor(vcpu: body.int("size", "vcpu") ?? 1, memoryGiB: body.double("size", "memoryGiB") ?? 1)
        if instance.flavorID != flavor.id { try await trove.resize(instance.id, flavorID: flavor.id) }
        if let wanted = body.int("size", "storageGiB"), wanted > instance.volumeGiB ?? wanted {
            try await trove.resize(instance.id, volumeGiB: wanted)
        }
        let recordedAccess = ResourceBody(recorded.attributes).databaseAccess
        if body.databaseAccess != nil || recordedAccess != nil {
            try await access.apply(instance, application: body.application, wanted: body.databaseAccess, recorded: recordedAccess, trove: trove)
        }
        return ObservedResource(address: body.address, providerID: instance.id, attributes: body.reportingAddresses(await reachableAddresses(instance)).document)
    }

    /// Trove refuses to delete an instance that is still building (422), so that is waited out first.
    func delete(_ recorded: ResourceState) async throws(OpenStackError) {
        let trove = try await connection.clients().trove
        do throws(OpenStackError) {
            if try await trove.instance(recorded.providerID).status == "BUILD" { _ = try await trove.waitUntilActive(recorded.providerID) }
        } catch {
            if error.fault?.status == 404 { return }
            throw error
        }
        try await trove.deleteInstance(recorded.providerID)
    }
}
