import MCloudCore
import MCloudHTTP

/// A Neutron security group rule as mcloud writes them.
public struct SecurityGroupRule: Sendable, Hashable {
    public var direction: String
    public var protocolName: String?
    public var portMin: Int?
    public var portMax: Int?
    public var remotePrefix: String?
    /// Traffic from members of this group (instead of a prefix).
    public var remoteGroupID: String?
    public var ethertype: String
    public var description: String?
    /// Set on rules read from Neutron.
    public var id: String?

    public init(
        direction: String = "ingress", protocolName: String? = "tcp", portMin: Int? = nil, portMax: Int? = nil, remotePrefix: String? = nil,
        remoteGroupID: String? = nil, ethertype: String = "IPv4", description: String? = nil, id: String? = nil
    ) {
        self.direction = direction
        self.protocolName = protocolName
        self.portMin = portMin
        self.portMax = portMax
        self.remotePrefix = remotePrefix
        self.remoteGroupID = remoteGroupID
        self.ethertype = ethertype
        self.description = description
        self.id = id
    }

    static func decode(_ item: JSONValue) -> SecurityGroupRule {
        SecurityGroupRule(
            direction: item["direction"]?.stringValue ?? "ingress", protocolName: item["protocol"]?.stringValue,
            portMin: item["port_range_min"]?.intValue, portMax: item["port_range_max"]?.intValue, remotePrefix: item["remote_ip_prefix"]?.stringValue,
            remoteGroupID: item["remote_group_id"]?.stringValue, ethertype: item["ethertype"]?.stringValue ?? "IPv4",
            description: item["description"]?.stringValue, id: item["id"]?.stringValue
        )
    }

    func body(group: String) -> JSONValue {
        var rule: [(String, JSONValue)] = [("security_group_id", .string(group)), ("direction", .string(direction)), ("ethertype", .string(ethertype))]
        if let protocolName { rule.append(("protocol", .string(protocolName))) }
        if let portMin { rule.append(("port_range_min", .int(portMin))) }
        if let portMax { rule.append(("port_range_max", .int(portMax))) }
        if let remotePrefix { rule.append(("remote_ip_prefix", .string(remotePrefix))) }
        if let remoteGroupID { rule.append(("remote_group_id", .string(remoteGroupID))) }
        if let description { rule.append(("description", .string(description))) }
        return .object([("security_group_rule", .object(rule))])
    }
}

public struct SecurityGroup: Sendable, Hashable {
    public var id: String
    public var name: String
    public var description: String = ""
    public var tags: [String] = []
    public var rules: [SecurityGroupRule] = []

    public init(id: String, name: String, description: String = "", tags: [String] = [], rules: [SecurityGroupRule] = []) {
        self.id = id
        self.name = name
        self.description = description
        self.tags = tags
        self.rules = rules
    }

    static func decode(_ item: JSONValue) -> SecurityGroup? {
        guard let id = item["id"]?.stringValue else { return nil }
        return SecurityGroup(
            id: id, name: item["name"]?.stringValue ?? "", description: item["description"]?.stringValue ?? "",
            tags: item["tags"]?.arrayItems.compactMap(\.stringValue) ?? [],
            rules: item["security_group_rules"]?.arrayItems.map(SecurityGroupRule.decode) ?? []
        )
    }
}

/// A Neutron network, as far as choosing one for a server goes.
public struct Network: Sendable, Hashable {
    public var id: String
    public var name: String
    public var isExternal: Bool
}

/// Neutron (network v2.0): security groups and their rules.
public struct NeutronClient: Sendable {
    public enum RuleOutcome: Sendable, Hashable {
        case created(id: String)
        /// Neutron answered 409 SecurityGroupRuleExists: the rule is there already.
        case alreadyPresent
    }

    public let session: OpenStackSession
    /// The `limit` each page of a listing asks for; Neutron may give fewer (`pagination_max_limit`) and links the next.
    let pageSize: Int

    public init(session: OpenStackSession, pageSize: Int = 100) {
        self.session = session
        self.pageSize = pageSize
    }

    /// The catalog's network endpoint has no version; the API lives under /v2.0.
    private func json(_ method: HTTPRequest.Method, _ path: String, body: JSONValue? = nil, expect: Set<Int> = [200], operation: String) async throws(OpenStackError) -> JSONValue {
        try await session.json("network", method, "/v2.0" + path, body: body, expect: expect, retryable: method != .POST, operation: operation)
    }

    public func createSecurityGroup(name: String, description: String) async throws(OpenStackError) -> SecurityGroup {
        let body: JSONValue = .object([("security_group", .object([("name", .string(name)), ("description", .string(description))]))])
        let answer = try await json(.POST, "/security-groups", body: body, expect: [201], operation: "create security group \(name)")
        guard let group = answer["security_group"].flatMap(SecurityGroup.decode) else { throw .invalidResponse("create security group \(name): no id in the answer") }
        return group
    }

    public func findSecurityGroups(name: String) async throws(OpenStackError) -> [SecurityGroup] {
        let answer = try await json(.GET, "/security-groups?name=\(NovaClient.escape(name))", operation: "list security groups named \(name)")
        return answer["security_groups"]?.arrayItems.compactMap(SecurityGroup.decode) ?? []
    }

    public func addRule(_ rule: SecurityGroupRule, to group: String) async throws(OpenStackError) -> RuleOutcome {
        do throws(OpenStackError) {
            let answer = try await json(.POST, "/security-group-rules", body: rule.body(group: group), expect: [201], operation: "add a rule to security group \(group)")
            guard let id = answer["security_group_rule"]?["id"]?.stringValue else { throw .invalidResponse("add rule: no id in the answer") }
            return .created(id: id)
        } catch {
            if case .api(let fault) = error, fault.status == 409, fault.kind == "SecurityGroupRuleExists" { return .alreadyPresent }
            throw error
        }
    }

    /// Security groups with their rules carrying every tag given (Neutron filters on the server side).
    public func securityGroups(tags: [String]) async throws(OpenStackError) -> [SecurityGroup] {
        let query = tags.map(NovaClient.escape).joined(separator: ",")
        return try await PageLinks.collect("list security groups", links: "security_groups_links", id: \.id) { marker throws(OpenStackError) in
            let page = "/security-groups?tags=\(query)&limit=\(pageSize)" + (marker.map { "&marker=\($0)" } ?? "")
            let answer = try await json(.GET, page, operation: "list security groups tagged \(tags.joined(separator: ", "))")
            return (answer, answer["security_groups"]?.arrayItems.compactMap(SecurityGroup.decode) ?? [])
        }
    }

    public func securityGroup(_ id: String) async throws(OpenStackError) -> SecurityGroup {
        let answer = try await json(.GET, "/security-groups/\(id)", operation: "get security group \(id)")
        guard let group = answer["security_group"].flatMap(SecurityGroup.decode) else { throw .invalidResponse("get security group \(id): no security group in the answer") }
        return group
    }

    /// Replaces the group's tags (Neutron tags: up to 255 characters each).
    public func setTags(_ tags: [String], onSecurityGroup id: String) async throws(OpenStackError) {
        _ = try await json(.PUT, "/security-groups/\(id)/tags", body: .object([("tags", .array(tags.map { .string($0) }))]), expect: [200], operation: "tag security group \(id)")
    }

    public func deleteRule(_ id: String) async throws(OpenStackError) {
        _ = try await json(.DELETE, "/security-group-rules/\(id)", expect: [204, 404], operation: "delete security group rule \(id)")
    }

    /// The networks the project can attach servers to (its own and shared ones, not external ones).
    public func networks() async throws(OpenStackError) -> [Network] {
        let answer = try await json(.GET, "/networks", operation: "list networks")
        return answer["networks"]?.arrayItems.compactMap { item in
            guard let id = item["id"]?.stringValue else { return nil }
            return Network(id: id, name: item["name"]?.stringValue ?? "", isExternal: item["router:external"] == .bool(true))
        }.filter { !$0.isExternal } ?? []
    }

    public func deleteSecurityGroup(_ id: String) async throws(OpenStackError) {
        _ = try await json(.DELETE, "/security-groups/\(id)", expect: [204, 404], operation: "delete security group \(id)")
    }
}
