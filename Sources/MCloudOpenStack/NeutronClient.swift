import MCloudCore
import MCloudHTTP

/// A Neutron security group rule as mcloud writes them.
public struct SecurityGroupRule: Sendable, Hashable {
    public var direction: String
    public var protocolName: String?
    public var portMin: Int?
    public var portMax: Int?
    public var remotePrefix: String?
    public var ethertype: String

    public init(direction: String = "ingress", protocolName: String? = "tcp", portMin: Int? = nil, portMax: Int? = nil, remotePrefix: String? = nil, ethertype: String = "IPv4") {
        self.direction = direction
        self.protocolName = protocolName
        self.portMin = portMin
        self.portMax = portMax
        self.remotePrefix = remotePrefix
        self.ethertype = ethertype
    }

    func body(group: String) -> JSONValue {
        var rule: [(String, JSONValue)] = [("security_group_id", .string(group)), ("direction", .string(direction)), ("ethertype", .string(ethertype))]
        if let protocolName { rule.append(("protocol", .string(protocolName))) }
        if let portMin { rule.append(("port_range_min", .int(portMin))) }
        if let portMax { rule.append(("port_range_max", .int(portMax))) }
        if let remotePrefix { rule.append(("remote_ip_prefix", .string(remotePrefix))) }
        return .object([("security_group_rule", .object(rule))])
    }
}

public struct SecurityGroup: Sendable, Hashable {
    public var id: String
    public var name: String
}

/// Neutron (network v2.0): security groups and their rules.
public struct NeutronClient: Sendable {
    public enum RuleOutcome: Sendable, Hashable {
        case created(id: String)
        /// Neutron answered 409 SecurityGroupRuleExists: the rule is there already.
        case alreadyPresent
    }

    public let session: OpenStackSession

    public init(session: OpenStackSession) {
        self.session = session
    }

    /// The catalog's network endpoint has no version; the API lives under /v2.0.
    private func json(_ method: HTTPRequest.Method, _ path: String, body: JSONValue? = nil, expect: Set<Int> = [200], operation: String) async throws(OpenStackError) -> JSONValue {
        try await session.json("network", method, "/v2.0" + path, body: body, expect: expect, retryable: method != .POST, operation: operation)
    }

    public func createSecurityGroup(name: String, description: String) async throws(OpenStackError) -> SecurityGroup {
        let body: JSONValue = .object([("security_group", .object([("name", .string(name)), ("description", .string(description))]))])
        let answer = try await json(.POST, "/security-groups", body: body, expect: [201], operation: "create security group \(name)")
        guard let id = answer["security_group"]?["id"]?.stringValue else { throw .invalidResponse("create security group \(name): no id in the answer") }
        return SecurityGroup(id: id, name: name)
    }

    public func findSecurityGroups(name: String) async throws(OpenStackError) -> [SecurityGroup] {
        let answer = try await json(.GET, "/security-groups?name=\(NovaClient.escape(name))", operation: "list security groups named \(name)")
        return answer["security_groups"]?.arrayItems.compactMap { item in
            item["id"]?.stringValue.map { SecurityGroup(id: $0, name: item["name"]?.stringValue ?? name) }
        } ?? []
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

    public func deleteSecurityGroup(_ id: String) async throws(OpenStackError) {
        _ = try await json(.DELETE, "/security-groups/\(id)", expect: [204, 404], operation: "delete security group \(id)")
    }
}
