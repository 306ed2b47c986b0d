/// What the database provider needs beyond launching: tags, resizing, the newest image and the default VPC.
extension EC2Client {
    /// Adds or overwrites tags on EC2 resources (instances, volumes, security groups).
    public func createTags(_ ids: [String], _ tags: [String: String]) async throws(AWSError) {
        guard !ids.isEmpty, !tags.isEmpty else { return }
        let parameters = ids.enumerated().map { ("ResourceId.\($0.offset + 1)", $0.element) } + Self.tagParameters(tags, prefix: "Tag")
        _ = try await client.query(.ec2, action: "CreateTags", version: Self.apiVersion, parameters: parameters, idempotent: true)
    }

    /// Removes the tags with these keys, whatever their values.
    public func deleteTags(_ ids: [String], keys: [String]) async throws(AWSError) {
        guard !ids.isEmpty, !keys.isEmpty else { return }
        let parameters = ids.enumerated().map { ("ResourceId.\($0.offset + 1)", $0.element) }
            + keys.sorted().enumerated().map { ("Tag.\($0.offset + 1).Key", $0.element) }
        _ = try await client.query(.ec2, action: "DeleteTags", version: Self.apiVersion, parameters: parameters, idempotent: true)
    }

    /// Stops the instance, changes its type and starts it again: EC2 resizes only stopped instances.
    public func resize(_ id: String, to instanceType: String, timeout: Double = 900) async throws(AWSError) {
        _ = try await client.query(.ec2, action: "StopInstances", version: Self.apiVersion, parameters: [("InstanceId.1", id)], idempotent: true)
        try await client.poller(timeout: timeout).until("instance \(id) stopped") { () throws(AWSError) in
            try await describeInstances(ids: [id]).allSatisfy { $0.state == "stopped" }
        }
        let parameters = [("InstanceId", id), ("InstanceType.Value", instanceType)]
        _ = try await client.query(.ec2, action: "ModifyInstanceAttribute", version: Self.apiVersion, parameters: parameters, idempotent: true)
        _ = try await client.query(.ec2, action: "StartInstances", version: Self.apiVersion, parameters: [("InstanceId.1", id)], idempotent: true)
    }

    /// The newest image of `owner` whose name matches `namePattern` (`*` wildcards), or nil.
    public func newestImage(owner: String, namePattern: String) async throws(AWSError) -> String? {
        let parameters = [("Owner.1", owner)] + Self.filterParameters([("name", [namePattern]), ("state", ["available"])])
        let answer = try await client.query(.ec2, action: "DescribeImages", version: Self.apiVersion, parameters: parameters, idempotent: true)
        let images = answer.child("imagesSet")?.children("item").compactMap { item -> (id: String, created: String)? in
            item.value("imageId").map { ($0, item.value("creationDate") ?? "") }
        } ?? []
        return images.max { $0.created < $1.created }?.id
    }

    /// The CIDR block of the region's default VPC, or nil when the account has none.
    public func defaultVPCCIDR() async throws(AWSError) -> String? {
        let parameters = Self.filterParameters([("is-default", ["true"])])
        let answer = try await client.query(.ec2, action: "DescribeVpcs", version: Self.apiVersion, parameters: parameters, idempotent: true)
        return answer.child("vpcSet")?.children("item").first?.value("cidrBlock")
    }
}
