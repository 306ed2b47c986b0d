import MCloudAWS
import MCloudCompression
import MCloudCore
import MCloudDatabaseEngines
import MCloudProvider
import MCloudSecrets

/// SecurityGroup, Volume and DatabaseServer: EC2 security groups, EBS volumes and instances.
extension AWSResourceProvider {
    func applySecurityGroup(_ resource: DesiredResource, _ session: AWSSession) async throws(AWSError) -> ObservedResource {
        let tags = AWSTag.tags(resource.body, address: resource.address, cloud: cloud)
        let name = AWSNames.securityGroup(name: resource.body.value(at: ["metadata", "name"])?.stringValue ?? resource.address.rawValue)
        let group = try await Self.createOnce(session, find: { () throws(AWSError) in
            try await session.ec2.describeSecurityGroups(tags: [AWSTag.address: resource.address.rawValue]).first
        }, create: { () throws(AWSError) in
            do throws(AWSError) {
                let id = try await session.ec2.createSecurityGroup(name: name, description: "mcloud \(resource.address)", tags: tags)
                return EC2Client.SecurityGroup(id: id, name: name, tags: tags, ingress: [])
            } catch where error.code == "InvalidGroup.Duplicate" {
                // Made by an attempt whose tags never landed: take it over.
                guard let id = try await session.ec2.securityGroupID(name: name) else { throw error }
                return EC2Client.SecurityGroup(id: id, name: name, tags: [:], ingress: [])
            }
        })
        let builder = AWSSecurityRules(cloud: cloud, settings: settings, session: session, ownAddress: resource.address.rawValue, ownID: group.id)
        let wanted = try await builder.rules(resource.body)
        let wantedKeys = Set(wanted.map(AWSSecurityRules.key))
        let currentKeys = Set(group.ingress.map(AWSSecurityRules.key))
        try await session.ec2.revokeIngress(groupID: group.id, rules: group.ingress.filter { !wantedKeys.contains(AWSSecurityRules.key($0)) })
        try await session.ec2.authorizeIngress(groupID: group.id, rules: wanted.filter { !currentKeys.contains(AWSSecurityRules.key($0)) })
        try await session.ec2.createTags([group.id], tags)
        return ObservedResource(address: resource.address, providerID: group.id, attributes: resource.body)
    }

    func deleteSecurityGroup(_ resource: ResourceState, _ session: AWSSession) async throws(AWSError) {
        for group in try await session.ec2.describeSecurityGroups(tags: [AWSTag.address: resource.address.rawValue]) {
            // Instances that used it may still be shutting down.
            try await session.client.poller(timeout: settings.timeout).until("security group \(group.id) deleted") { () throws(AWSError) in
                do throws(AWSError) {
                    try await session.ec2.deleteSecurityGroup(id: group.id)
                    return true
                } catch where error.code == "DependencyViolation" {
                    return false
                }
            }
        }
    }

    func applyVolume(_ resource: DesiredResource, _ session: AWSSession) async throws(AWSError) -> ObservedResource {
        let tags = AWSTag.tags(resource.body, address: resource.address, cloud: cloud)
        let size = Int((ResourceBody(resource.body).double("sizeGiB") ?? 1).rounded(.up))
        guard let zone = ResourceBody(resource.body).string("zone") else { throw .configuration("\(resource.address) names no spec.zone") }
        let volume = try await Self.createOnce(session, find: { () throws(AWSError) in
            try await session.ec2.describeVolumes(tags: [AWSTag.address: resource.address.rawValue]).first { $0.state != "deleting" && $0.state != "deleted" }
        }, create: { () throws(AWSError) in
            try await session.ec2.createVolume(
                zone: zone, sizeGiB: size, tags: tags, clientToken: AWSNames.clientToken(address: resource.address.rawValue, digest: AWSTag.digest(resource.body))
            )
        })
        if volume.sizeGiB < size { try await session.ec2.modifyVolume(volume.id, sizeGiB: size) }
        try await session.ec2.createTags([volume.id], tags)
        return ObservedResource(address: resource.address, providerID: volume.id, attributes: resource.body)
    }

    func deleteVolume(_ resource: ResourceState, _ session: AWSSession) async throws(AWSError) {
        for volume in try await session.ec2.describeVolumes(tags: [AWSTag.address: resource.address.rawValue]) {
            try await session.ec2.deleteVolume(volume.id, timeout: settings.timeout)
        }
    }

    func applyDatabaseServer(_ resource: DesiredResource, _ session: AWSSession) async throws(AWSError) -> ObservedResource {
        let body = resource.body
        let tags = AWSTag.tags(body, address: resource.address, cloud: cloud)
        let type = AWSInstanceType.name(vcpu: ResourceBody(body).double("flavor", "vcpu") ?? 2, memoryGiB: ResourceBody(body).double("flavor", "memoryGiB") ?? 4)
        let find = { () async throws(AWSError) -> EC2Client.Instance? in
            try await session.ec2.describeInstances(tags: [AWSTag.address: resource.address.rawValue], states: AWSInventory.liveStates)
                .first { $0.state != "shutting-down" }
        }
        let instance: EC2Client.Instance
        if let existing = try await find() {
            instance = existing
            if existing.instanceType != type { try await session.ec2.resize(existing.id, to: type, timeout: settings.timeout) }
            // Role, replication source and port live in tags the VM reads; refresh them with the digest.
            try await session.ec2.createTags([existing.id], tags)
        } else {
            let groups = try await securityGroupIDs(body, resource.address, session)
            let read = ResourceBody(body)
            let server = Self.serverSpec(read)
            // A DR leg with its own IAM user gets a fresh key of that user; another DR bucket in AWS is reached with
            // the instance profile's role; one at another S3 endpoint needs the backup profile's keys. The same for
            // the bucket a recovery point comes from.
            func keys(_ location: BucketLocation?) async throws(AWSError) -> [(name: String, value: String)] {
                guard let location else { return [] }
                if location.identity != nil { return try await ScopedBackupKey.mint(location, environment: settings.environment).secrets }
                guard location.endpoint != nil else { return [] }
                return try BackupUpload.resolve(location, environment: settings.environment).secrets
            }
            let backupKeys = try await keys(server.backup?.location)
            let restoreKeys = try await keys(server.restore?.location)
            let disks = try await Self.disks(body, session)
            let primaryAddress = try await primaryAddress(read, session)
            let userData = try userData(server, read, backupKeys: backupKeys, restoreKeys: restoreKeys, disks: disks, primaryAddress: primaryAddress)
            let spec = EC2Client.InstanceSpec(
                imageID: try await image(server.image ?? .standard(for: .aws), session), instanceType: type, userData: userData,
                securityGroupIDs: groups,
                tags: tags,
                clientToken: AWSNames.clientToken(address: resource.address.rawValue, digest: AWSTag.digest(body)),
                availabilityZone: ResourceBody(body).string("zone"), instanceProfile: settings.instanceProfile
            )
            instance = try await Self.createOnce(session, find: find, create: { () throws(AWSError) in
                try await session.ec2.runInstance(spec, resendLostAnswers: false)
            })
        }
        if let address = ResourceBody(body).string("volume") {
            guard let volume = try await session.ec2.describeVolumes(tags: [AWSTag.address: address]).first else {
                throw .configuration("\(resource.address): its volume \(address) does not exist")
            }
            if !volume.attachedTo.contains(instance.id) {
                try await session.client.poller(timeout: settings.timeout).until("instance \(instance.id) running") { () throws(AWSError) in
                    try await session.ec2.describeInstances(ids: [instance.id]).allSatisfy { $0.state == "running" }
                }
                try await session.ec2.attachVolume(volume.id, instanceID: instance.id, device: "/dev/sdf")
            }
        }
        let running = try await self.running(instance, session)
        return ObservedResource(address: resource.address, providerID: instance.id, attributes: ResourceBody(body).reportingAddresses(Self.reachableAddresses(running)).document)
    }

    /// Where a standby reaches its primary, which was made before it (the standby names it): the primary's private
    /// address, inside the VPC both are in.
    func primaryAddress(_ body: ResourceBody, _ session: AWSSession) async throws(AWSError) -> String? {
        guard case .standby = body.replication, let primary = body.replicaOf else { return nil }
        let found = try await session.ec2.describeInstances(tags: [AWSTag.address: primary.rawValue], states: AWSInventory.liveStates).first { $0.state != "shutting-down" }
        guard let address = found?.privateIP, !address.isEmpty else { throw .configuration("\(body.address): its primary \(primary.rawValue) has no private address") }
        return address
    }

    /// The addresses a database VM is reached at, for the EndpointSlices and egress policies that name it
    /// (docs/connectivity.md, Names): the public one first, as the clusters that use a database VM reach it from
    /// outside its VPC (its security group admits their egress ranges, where their traffic leaves to the internet),
    /// then the private one, which a cluster inside the VPC reaches.
    static func reachableAddresses(_ instance: EC2Client.Instance) -> [String] {
        [instance.publicIP, instance.privateIP].compactMap { $0 }.filter { !$0.isEmpty }
    }

    /// The instance once running: EC2 gives it its public address while it starts, so RunInstances' answer may
    /// have none yet.
    private func running(_ instance: EC2Client.Instance, _ session: AWSSession) async throws(AWSError) -> EC2Client.Instance {
        var current = instance
        try await session.client.poller(timeout: settings.timeout).until("instance \(instance.id) running") { () throws(AWSError) in
            current = try await session.ec2.describeInstances(ids: [instance.id]).first ?? current
            return current.state == "running"
        }
        return current
    }

    func deleteDatabaseServer(_ resource: ResourceState, _ session: AWSSession) async throws(AWSError) {
        let ids = try await session.ec2.describeInstances(tags: [AWSTag.address: resource.address.rawValue], states: AWSInventory.liveStates).map(\.id)
        guard !ids.isEmpty else { return }
        try await session.ec2.terminateAndWait(ids, timeout: settings.timeout)
    }

    /// The id of the security group `spec.securityGroup` names, which must exist already.
    func securityGroupIDs(_ body: JSONValue, _ address: ResourceAddress, _ session: AWSSession) async throws(AWSError) -> [String] {
        guard let group = ResourceBody(body).string("securityGroup") else { return [] }
        guard let found = try await session.ec2.describeSecurityGroups(tags: [AWSTag.address: group]).first else {
            throw .configuration("\(address): its security group \(group) does not exist")
        }
        return [found.id]
    }

    /// The image the catalog names (`spec.image`): its `id`, else the newest AMI of `owner` whose name matches `name`.
    private func image(_ image: VMImage, _ session: AWSSession) async throws(AWSError) -> String {
        if let id = image.id { return id }
        let pattern = image.name ?? VMImage.standard(for: .aws).name ?? ""
        let owner = image.owner ?? VMImage.standard(for: .aws).owner ?? ""
        guard let found = try await session.ec2.newestImage(owner: owner, namePattern: pattern) else {
            throw .configuration("no \(image.family) image named \(pattern) of owner \(owner) in \(cloud) (spec.vm.image of its catalog entry)")
        }
        return found
    }

    /// The names the EBS volume attached as /dev/sdf gets: on Nitro instances udev's link of the NVMe disk whose
    /// serial is the volume ID, on Xen ones /dev/xvdf.
    static func disks(_ body: JSONValue, _ session: AWSSession) async throws(AWSError) -> [String] {
        var names = ["/dev/xvdf", "/dev/sdf"]
        if let address = ResourceBody(body).string("volume"), let volume = try await session.ec2.describeVolumes(tags: [AWSTag.address: address]).first {
            names.insert("/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_\(volume.id.filter { $0 != "-" })", at: 0)
        }
        return names
    }
}
