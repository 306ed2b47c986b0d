import MCloudHTTP

/// EBS volumes for database VMs: create in a zone, find by tags, attach, grow, detach and delete.
extension EC2Client {
    public struct Volume: Sendable, Hashable {
        public var id: String
        /// `creating`, `available`, `in-use`, `deleting`, `deleted`, `error`.
        public var state: String
        public var sizeGiB: Int
        public var zone: String
        /// The instances it is attached to.
        public var attachedTo: [String]
        public var tags: [String: String]
        public var encrypted = false
    }

    /// Creates an encrypted gp3 volume (the account's EBS key). Like `runInstance(_:resendLostAnswers:)`, an answer lost
    /// on the way is not resent here.
    public func createVolume(zone: String, sizeGiB: Int, tags: [String: String], clientToken: String) async throws(AWSError) -> Volume {
        var parameters = [
            ("AvailabilityZone", zone), ("Size", String(sizeGiB)), ("VolumeType", "gp3"), ("Encrypted", "true"), ("ClientToken", clientToken),
        ]
        if !tags.isEmpty {
            parameters.append(("TagSpecification.1.ResourceType", "volume"))
            parameters += Self.tagParameters(tags, prefix: "TagSpecification.1.Tag")
        }
        let answer = try await client.query(.ec2, action: "CreateVolume", version: Self.apiVersion, parameters: parameters)
        guard let volume = Self.volume(answer) else { throw .invalidResponse(operation: "ec2 CreateVolume", detail: "no volumeId in the answer") }
        return volume
    }

    /// Volumes carrying every given tag (paginated), or the given ids.
    public func describeVolumes(tags: [String: String] = [:], ids: [String] = []) async throws(AWSError) -> [Volume] {
        var parameters = Self.filterParameters(tags.sorted { $0.key < $1.key }.map { ("tag:\($0.key)", [$0.value]) })
        for (index, id) in ids.enumerated() { parameters.append(("VolumeId.\(index + 1)", id)) }
        var volumes: [Volume] = []
        var pages = PageTokens(operation: "ec2 DescribeVolumes")
        var token: String?
        repeat {
            let page = parameters + (token.map { [("NextToken", $0)] } ?? [])
            let answer = try await client.query(.ec2, action: "DescribeVolumes", version: Self.apiVersion, parameters: page, idempotent: true)
            volumes += answer.child("volumeSet")?.children("item").compactMap(Self.volume) ?? []
            token = try pages.advance(answer.value("nextToken"))
        } while token != nil
        return volumes
    }

    public func attachVolume(_ id: String, instanceID: String, device: String) async throws(AWSError) {
        let parameters = [("VolumeId", id), ("InstanceId", instanceID), ("Device", device)]
        _ = try await client.query(.ec2, action: "AttachVolume", version: Self.apiVersion, parameters: parameters)
    }

    /// Grows a volume in place (EBS cannot shrink one).
    public func modifyVolume(_ id: String, sizeGiB: Int) async throws(AWSError) {
        _ = try await client.query(.ec2, action: "ModifyVolume", version: Self.apiVersion, parameters: [("VolumeId", id), ("Size", String(sizeGiB))], idempotent: true)
    }

    /// Detaches the volume from every instance, waits until it is `available`, then deletes it. A missing volume
    /// counts as deleted.
    public func deleteVolume(_ id: String, timeout: Double = 600) async throws(AWSError) {
        do {
            guard let volume = try await describeVolumes(ids: [id]).first else { return }
            if !volume.attachedTo.isEmpty {
                _ = try await client.query(.ec2, action: "DetachVolume", version: Self.apiVersion, parameters: [("VolumeId", id)], idempotent: true)
                try await client.poller(timeout: timeout).until("volume \(id) detached") { () throws(AWSError) in
                    try await describeVolumes(ids: [id]).allSatisfy { $0.attachedTo.isEmpty }
                }
            }
            _ = try await client.query(.ec2, action: "DeleteVolume", version: Self.apiVersion, parameters: [("VolumeId", id)], idempotent: true)
        } catch where error.code == "InvalidVolume.NotFound" {
            return
        }
    }

    /// `Filter.N.Name` / `Filter.N.Value.M` parameters.
    static func filterParameters(_ filters: [(String, [String])]) -> [(String, String)] {
        var parameters: [(String, String)] = []
        for (index, filter) in filters.enumerated() {
            parameters.append(("Filter.\(index + 1).Name", filter.0))
            for (valueIndex, value) in filter.1.enumerated() { parameters.append(("Filter.\(index + 1).Value.\(valueIndex + 1)", value)) }
        }
        return parameters
    }

    static func volume(_ item: XMLNode) -> Volume? {
        guard let id = item.value("volumeId") else { return nil }
        let attached = item.child("attachmentSet")?.children("item").filter { $0.value("status") != "detached" }.compactMap { $0.value("instanceId") } ?? []
        return Volume(
            id: id, state: item.value("status") ?? "unknown", sizeGiB: item.value("size").flatMap { Int($0) } ?? 0,
            zone: item.value("availabilityZone") ?? "", attachedTo: attached, tags: tags(item), encrypted: item.value("encrypted") == "true"
        )
    }
}
