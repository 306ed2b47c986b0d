/// Security groups with their ingress rules: list by tags, and add or remove rules of either source kind.
extension EC2Client {
    /// One ingress permission from one source: a CIDR block or another security group.
    public struct IngressRule: Sendable, Hashable {
        /// `tcp`, `udp`, `icmp` or `-1` (all).
        public var ipProtocol: String
        public var fromPort: Int?
        public var toPort: Int?
        public var cidr: String?
        public var sourceGroupID: String?
        public var description: String?

        public init(ipProtocol: String, fromPort: Int?, toPort: Int?, cidr: String? = nil, sourceGroupID: String? = nil, description: String? = nil) {
            self.ipProtocol = ipProtocol
            self.fromPort = fromPort
            self.toPort = toPort
            self.cidr = cidr
            self.sourceGroupID = sourceGroupID
            self.description = description
        }
    }

    public struct SecurityGroup: Sendable, Hashable {
        public var id: String
        public var name: String
        public var tags: [String: String]
        /// One entry per source, in the order EC2 lists them.
        public var ingress: [IngressRule]

        public init(id: String, name: String, tags: [String: String], ingress: [IngressRule]) {
            self.id = id
            self.name = name
            self.tags = tags
            self.ingress = ingress
        }
    }

    /// Security groups carrying every given tag.
    public func describeSecurityGroups(tags: [String: String]) async throws(AWSError) -> [SecurityGroup] {
        let parameters = Self.filterParameters(tags.sorted { $0.key < $1.key }.map { ("tag:\($0.key)", [$0.value]) })
        let answer = try await client.query(.ec2, action: "DescribeSecurityGroups", version: Self.apiVersion, parameters: parameters, idempotent: true)
        return answer.child("securityGroupInfo")?.children("item").compactMap { item -> SecurityGroup? in
            guard let id = item.value("groupId") else { return nil }
            return SecurityGroup(id: id, name: item.value("groupName") ?? "", tags: Self.tags(item), ingress: Self.rules(item.child("ipPermissions")))
        } ?? []
    }

    /// Adds rules; rules that already exist are skipped (`InvalidPermission.Duplicate`).
    public func authorizeIngress(groupID: String, rules: [IngressRule]) async throws(AWSError) {
        for rule in rules {
            do {
                _ = try await client.query(
                    .ec2, action: "AuthorizeSecurityGroupIngress", version: Self.apiVersion, parameters: [("GroupId", groupID)] + Self.permission(rule)
                )
            } catch where error.code == "InvalidPermission.Duplicate" {
                continue
            }
        }
    }

    /// Removes rules; rules that are already gone are skipped.
    public func revokeIngress(groupID: String, rules: [IngressRule]) async throws(AWSError) {
        for rule in rules {
            do {
                _ = try await client.query(
                    .ec2, action: "RevokeSecurityGroupIngress", version: Self.apiVersion, parameters: [("GroupId", groupID)] + Self.permission(rule),
                    idempotent: true
                )
            } catch where error.code == "InvalidPermission.NotFound" {
                continue
            }
        }
    }

    static func permission(_ rule: IngressRule) -> [(String, String)] {
        var parameters = [("IpPermissions.1.IpProtocol", rule.ipProtocol)]
        if let from = rule.fromPort { parameters.append(("IpPermissions.1.FromPort", String(from))) }
        if let to = rule.toPort { parameters.append(("IpPermissions.1.ToPort", String(to))) }
        let source = rule.cidr.map { [("IpPermissions.1.IpRanges.1.CidrIp", $0)] } ?? rule.sourceGroupID.map { [("IpPermissions.1.Groups.1.GroupId", $0)] } ?? []
        parameters += source
        if let description = rule.description {
            parameters.append((rule.cidr != nil ? "IpPermissions.1.IpRanges.1.Description" : "IpPermissions.1.Groups.1.Description", description))
        }
        return parameters
    }

    /// Flattens `ipPermissions` to one rule per source.
    static func rules(_ permissions: XMLNode?) -> [IngressRule] {
        (permissions?.children("item") ?? []).flatMap { item -> [IngressRule] in
            let ipProtocol = item.value("ipProtocol") ?? "-1"
            let from = item.value("fromPort").flatMap { Int($0) }
            let to = item.value("toPort").flatMap { Int($0) }
            let ranges = (item.child("ipRanges")?.children("item") ?? []).map {
                IngressRule(ipProtocol: ipProtocol, fromPort: from, toPort: to, cidr: $0.value("cidrIp"), description: $0.value("description"))
            }
            let groups = (item.child("groups")?.children("item") ?? []).map {
                IngressRule(ipProtocol: ipProtocol, fromPort: from, toPort: to, sourceGroupID: $0.value("groupId"), description: $0.value("description"))
            }
            return ranges + groups
        }
    }
}
