import MCloudAWS
import MCloudCompression
import MCloudCore
import MCloudDatabaseEngines
import MCloudOpenStack
import MCloudProvider
import MCloudSecrets

/// `DatabaseServer` as a Nova server: the smallest flavor with the spec's vCPUs and memory, the image the catalog
/// names (`spec.image`), the engine catalog's cloud-init user data (`DatabaseUserData`) for the image's family, its
/// Volume attached (the user data waits for it as `/dev/disk/by-id/virtio-<volume id>` or `/dev/vdb`) and its
/// SecurityGroup given. The spec's engine, version,
/// port, role, DNS name and the addresses of its volume and group go into the server's metadata, which the
/// server's own scripts read too. Reads back the flavor's size, the attached volume and the group, and reports the
/// server's addresses (`status.addresses`), which apply puts in the EndpointSlices that name the server. With
/// `spec.backup`, the keys of the DR bucket's backup profile are resolved at creation and given to the VM in its
/// user data only; with `spec.restore` (a failover's recovery point), those of the bucket it restores from. With
/// `spec.access`, the server's TLS certificate and its clients' verifiers are derived from the operator's age
/// identity (`ServerAccess`) into the user data; `problems` makes a missing identity a plan-time error. With
/// `spec.replication`, the replication user's verifier (primary) or password and the primary's address (standby) too.
struct DatabaseServerKind: Sendable {
    static let kind = ResourceKind.databaseServer
    let cloud: String
    let connection: OpenStackConnection
    /// Where the operator's AWS files are found for the backup profile's keys; mcloud's own keys in it are never used.
    let environment: [String: String]

    /// Spec fields kept in the server's metadata, by metadata key.
    static let stored: [(key: String, field: String)] = [
        ("engine", "engine"), ("version", "version"), ("port", "port"), ("role", "role"), ("dns-name", "dnsName"),
        (OwnershipKeys.zone, "zone"), ("mcloud-volume", "volume"), ("mcloud-security-group", "securityGroup"),
    ]

    func observe(_ inventory: Inventory, bases: [ResourceAddress: ResourceBody]) async throws(OpenStackError) -> [ObservedResource] {
        let volumes = Dictionary(inventory.volumes.compactMap { volume in Inventory.address(of: volume).map { (volume.id, $0) } }, uniquingKeysWith: { first, _ in first })
        let groups = Set(inventory.groups.compactMap(Inventory.address(of:)))
        var observed: [ObservedResource] = []
        for server in inventory.servers {
            guard let text = Inventory.address(of: server), OwnershipKeys.matches(text, cloud: cloud, kind: Self.kind) else { continue }
            let address = ResourceAddress(text)
            var body = bases[address] ?? .orphan(kind: Self.kind, address: address, name: server.name, cloud: cloud)
            for (key, field) in Self.stored where !["mcloud-volume", "mcloud-security-group"].contains(key) {
                let value = server.metadata[key].map { field == "port" ? Int($0).map(JSONValue.int) ?? .string($0) : .string($0) }
                body = body.settingSpec([field], value)
            }
            let attached = server.attachedVolumeIDs.compactMap { volumes[$0] }
            body = body.settingSpec(["volume"], attached.first.map(JSONValue.string))
            body = body.settingSpec(["securityGroup"], server.metadata["mcloud-security-group"].flatMap { groups.contains($0) ? .string($0) : nil })
            if let vcpus = server.flavorVCPUs, let ram = server.flavorRAMMiB {
                let size = try await connection.reportedSize(spec: body.int("flavor", "vcpu"), memoryGiB: body.double("flavor", "memoryGiB"), actual: (vcpus, ram))
                body = body.settingSpec(["flavor", "vcpu"], size.vcpu).settingSpec(["flavor", "memoryGiB"], size.memoryGiB)
            }
            body = body.reportingAddresses(server.addresses)
            observed.append(ObservedResource(address: address, providerID: server.id, attributes: body.document, isBeingDeleted: server.isDeleting))
        }
        return observed
    }

    static func problems(_ body: ResourceBody, environment: [String: String]) -> [String] {
        ServerAccess.problems(engine: body.string("engine") ?? "", access: body.databaseAccess, replication: body.replication, environment: environment)
            + PostgreSQLArchive.problems(engine: body.string("engine") ?? "", backup: body.backup, environment: environment)
            + DumpEncryption.problems(engine: body.string("engine") ?? "", backup: body.backup, environment: environment)
            + (userDataProblem(body, environment: environment).map { [$0] } ?? [])
    }

    static func replacementReasons(desired: ResourceBody, current: ResourceBody) -> [String] {
        var reasons = ["engine", "version", "role", "zone", "volume"].compactMap { field in
            desired.string(field) == current.string(field) ? nil : "spec.\(field) cannot change on a running database server"
        }
        // The backup settings and keys live in the user data, which Nova sets only when it makes the server.
        if !desired.sameBackup(as: current) {
            reasons.append("spec.backup is in the server's user data, which cannot change")
        }
        if let image = desired.spec["image"], !FieldDiff.same(image, current.spec["image"] ?? image) {
            reasons.append("spec.image: a server cannot change its image")
        }
        reasons += desired.userDataChanges(from: current)
        return reasons
    }

    static func find(_ address: String, in nova: NovaClient) async throws(OpenStackError) -> Server? {
        try await nova.findServers(tagged: OwnershipKeys.managedTag, metadata: [OwnershipKeys.address: address]).first { !$0.isDeleting }
    }

    func create(_ body: ResourceBody) async throws(OpenStackError) -> ObservedResource {
        let clients = try await connection.clients()
        var server: Server
        if let existing = try await Self.find(body.address.rawValue, in: clients.nova) {
            server = existing
        } else {
            server = try await clients.nova.createServer(try await request(body, clients))
        }
        if server.status != "ACTIVE" { server = try await clients.nova.waitUntilActive(server.id) }
        try await attachVolume(body, to: server, clients)
        return ObservedResource(address: body.address, providerID: server.id, attributes: body.reportingAddresses(server.addresses).document)
    }

    /// The keys for `target`, for the VM's user data: a fresh key of the leg's own IAM user when mcloud made one (a
    /// bucket on AWS), else the bucket's backup profile's.
    private func keys(_ target: BucketLocation) async throws(OpenStackError) -> [(name: String, value: String)] {
        do throws(AWSError) {
            if target.identity != nil { return try await ScopedBackupKey.mint(target, environment: environment).secrets }
            return try BackupUpload.resolve(target, environment: environment).secrets
        } catch {
            throw .configuration(error.description, at: nil, file: nil)
        }
    }

    private func request(_ body: ResourceBody, _ clients: OpenStackConnection.Clients) async throws(OpenStackError) -> ServerRequest {
        let spec = Self.spec(body)
        let recipe: Recipe
        switch spec.recipe() {
        case .success(let found): recipe = found
        case .failure(let missing): throw .resourceFailed(missing.message)
        }
        if let problem = spec.replicationProblem(recipe) { throw .resourceFailed(problem) }
        let flavor = try await connection.flavor(vcpu: body.int("flavor", "vcpu") ?? 1, memoryGiB: body.double("flavor", "memoryGiB") ?? 1)
        var groups: [String] = []
        if let groupAddress = body.string("securityGroup") {
            guard let group = try await SecurityGroupKind.find(groupAddress, in: clients.neutron, application: body.application) else {
                throw .resourceFailed("its security group \(groupAddress) does not exist")
            }
            groups = [group.id]
        }
        let secrets = if let location = spec.backup?.location { try await keys(location) } else { [(name: String, value: String)]() }
        let restoreSecrets = if let point = spec.restore { try await keys(point.location) } else { [(name: String, value: String)]() }
        let userData = try Self.userData(
            spec, body, recipe: recipe, secrets: secrets, restoreSecrets: restoreSecrets, disks: try await Self.disks(body, clients),
            primaryAddress: try await Self.primaryAddress(body, clients), environment: environment
        )
        let networks = try await connection.serverNetworks()
        return ServerRequest(
            name: body.name, imageID: try await connection.imageID(spec.image ?? .standard(for: .openstack)), flavorID: flavor.id,
            userData: userData,
            marks: OwnershipKeys.marks(body, extra: Self.metadata(body)),
            // A server without a port has nothing a group could apply to; Nova refuses groups then.
            securityGroups: networks == ServerRequest.Networks.none ? [] : groups, networks: networks,
            availabilityZone: try await connection.computeZone(body.string("zone"))
        )
    }

    /// The user data of the server `body` describes, gzipped as cloud-init takes it: in text the user data of a
    /// primary with a standby and an archive outgrows the 65,535 characters of base64 Nova accepts (docs/databases.md,
    /// "User data").
    static func userData(
        _ spec: DatabaseServerSpec, _ body: ResourceBody, recipe: Recipe, secrets: [(name: String, value: String)],
        restoreSecrets: [(name: String, value: String)], disks: [String], primaryAddress: String?, environment: [String: String]
    ) throws(OpenStackError) -> [UInt8] {
        let authority: String?
        do throws(AWSError) { authority = try BackupUpload.certificateAuthority(environment: environment) } catch { throw .configuration(error.description, at: nil, file: nil) }
        let vm: DatabaseVM
        do throws(SecretsError) {
            vm = try spec.vmWithSecrets(
                recipe: recipe, address: body.address.rawValue, server: body.name, application: body.application, disks: disks, secrets: secrets,
                restoreSecrets: restoreSecrets, primaryAddress: primaryAddress, environment: environment, certificateAuthority: authority
            )
        } catch {
            throw .configuration(error.description, at: nil, file: nil)
        }
        do throws(CompressionError) {
            return try Gzip.compress(Array(DatabaseUserData.render(vm).utf8))
        } catch {
            throw .configuration("the user data of \(body.name): \(error.description)", at: nil, file: nil)
        }
    }

    /// Why the server's user data would not fit Nova, measured at plan time with keys, disks and an address as long as
    /// the real ones (which exist only once apply makes them); nil when it fits, or when what it needs is missing
    /// (the other plan-time checks say so).
    static func userDataProblem(_ body: ResourceBody, environment: [String: String]) -> String? {
        let spec = spec(body)
        guard case .success(let recipe) = spec.recipe(), spec.replicationProblem(recipe) == nil else { return nil }
        guard let bytes = try? userData(
            spec, body, recipe: recipe, secrets: DatabaseServerSpec.standInKeys(for: spec.backup?.location),
            restoreSecrets: DatabaseServerSpec.standInKeys(for: spec.restore?.location),
            disks: ["/dev/disk/by-id/virtio-" + String(repeating: "0", count: 20), "/dev/vdb"],
            primaryAddress: spec.replication.map { _ in "255.255.255.255" }, environment: environment
        ) else { return nil }
        let encoded = (bytes.count + 2) / 3 * 4
        guard encoded > NovaClient.userDataLimit else { return nil }
        return "its user data is \(bytes.count) bytes gzipped, \(encoded) characters of base64, over the \(NovaClient.userDataLimit) Nova accepts: fewer services that use it, or a cloud whose VMs take more (docs/databases.md, \"User data\")"
    }

    static func spec(_ body: ResourceBody) -> DatabaseServerSpec {
        DatabaseServerSpec(
            engine: body.string("engine") ?? "", version: body.string("version") ?? "", port: body.int("port"), image: body.image,
            defaultFamily: VMImage.standard(for: .openstack).family, backup: body.backup, restore: body.restore, access: body.databaseAccess,
            replication: body.replication
        )
    }

    /// Where a standby reaches its primary, which was made before it (the standby names it): the primary's fixed
    /// address, which Nova lists after any floating one (`Server.addresses`); nil for a primary without a port, as on
    /// the test bed, whose name must then resolve on the standby.
    static func primaryAddress(_ body: ResourceBody, _ clients: OpenStackConnection.Clients) async throws(OpenStackError) -> String? {
        guard case .standby = body.replication, let primary = body.replicaOf else { return nil }
        guard let server = try await find(primary.rawValue, in: clients.nova) else { throw .resourceFailed("its primary \(primary.rawValue) does not exist") }
        return server.addresses.last
    }

    /// The names the data volume gets in the guest: udev's link of the virtio disk whose serial is the volume ID (as
    /// far as virtio keeps it, 20 characters), else the second disk, `/dev/vdb`, which the volume is when it is the
    /// only one attached.
    static func disks(_ body: ResourceBody, _ clients: OpenStackConnection.Clients) async throws(OpenStackError) -> [String] {
        guard let address = body.string("volume"), let volume = try await VolumeKind.find(address, in: clients.cinder) else { return ["/dev/vdb"] }
        return ["/dev/disk/by-id/virtio-\(volume.id.prefix(20))", "/dev/vdb"]
    }

    static func metadata(_ body: ResourceBody) -> [String: String] {
        var items: [String: String] = [:]
        for (key, field) in stored {
            if let value = body.spec[field], let text = value.stringValue ?? value.intValue.map(String.init) { items[key] = text }
        }
        return items
    }

    private func attachVolume(_ body: ResourceBody, to server: Server, _ clients: OpenStackConnection.Clients) async throws(OpenStackError) {
        guard let volumeAddress = body.string("volume") else { return }
        guard let volume = try await VolumeKind.find(volumeAddress, in: clients.cinder) else {
            throw .resourceFailed("its volume \(volumeAddress) does not exist")
        }
        guard !volume.serverIDs.contains(server.id) else { return }
        try await clients.nova.attachVolume(volume.id, to: server.id)
        _ = try await clients.cinder.waitForStatus(volume.id, "in-use")
    }

    /// Resizes to the flavor the spec now needs, rewrites the metadata, and attaches the volume if it is not.
    func update(_ body: ResourceBody, recorded: ResourceState) async throws(OpenStackError) -> ObservedResource {
        let clients = try await connection.clients()
        let server = try await clients.nova.server(recorded.providerID)
        let flavor = try await connection.flavor(vcpu: body.int("flavor", "vcpu") ?? 1, memoryGiB: body.double("flavor", "memoryGiB") ?? 1)
        if server.flavorVCPUs != flavor.vcpus || server.flavorRAMMiB != flavor.ramMiB {
            try await clients.nova.resize(server.id, flavorID: flavor.id)
        }
        try await clients.nova.setMetadata(server.id, Self.metadata(body))
        try await attachVolume(body, to: server, clients)
        return ObservedResource(address: body.address, providerID: server.id, attributes: body.reportingAddresses(server.addresses).document)
    }

    /// Nova deletes a server without a clean shutdown, so the engine would lose what it has not written to the disk
    /// (Redis: everything since its last RDB save), which matters when the server is made again on its volume. Stopped
    /// first, the guest's systemd stops the engine, which writes it all.
    func delete(_ recorded: ResourceState) async throws(OpenStackError) {
        let nova = try await connection.clients().nova
        try await nova.stopServer(recorded.providerID)
        try await nova.deleteServer(recorded.providerID)
    }
}
