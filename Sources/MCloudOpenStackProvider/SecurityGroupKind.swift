import MCloudCore
import MCloudOpenStack
import MCloudProvider

/// `SecurityGroup` as a Neutron security group named after the metadata, tagged `managed-by:mcloud`,
/// `application:<app>` and `address:<address>`, with one ingress rule per `spec.ingress` item. Reads back the
/// ingress rules (each rule's description says which item it is).
struct SecurityGroupKind: Sendable {
    static let kind = ResourceKind.securityGroup
    let cloud: String
    let connection: OpenStackConnection

    func observe(_ inventory: Inventory, bases: [ResourceAddress: ResourceBody]) -> [ObservedResource] {
        inventory.groups.compactMap { group in
            guard let text = Inventory.address(of: group), OwnershipKeys.matches(text, cloud: cloud, kind: Self.kind) else { return nil }
            let address = ResourceAddress(text)
            let base = bases[address] ?? .orphan(kind: Self.kind, address: address, name: group.name, cloud: cloud)
            let body = base.settingSpec(["ingress"], .array(Self.ingress(of: group, orderedAs: base.spec["ingress"]?.arrayItems ?? [])))
            return ObservedResource(address: address, providerID: group.id, attributes: body.document)
        }
    }

    /// The group's ingress rules as spec items, in the order of `items` where they match, others after.
    static func ingress(of group: SecurityGroup, orderedAs items: [JSONValue]) -> [JSONValue] {
        var live = IngressRule.merged(group.rules.filter { $0.direction == "ingress" }.flatMap(IngressRule.items(of:)))
        var result: [JSONValue] = []
        for item in items {
            guard let wanted = IngressRule(spec: item), let index = live.firstIndex(of: wanted) else { continue }
            result.append(live.remove(at: index).spec(spelling: item["protocol"]?.stringValue))
        }
        return result + live.map { $0.spec(spelling: nil) }
    }

    static func find(_ address: String, in neutron: NeutronClient, application: String) async throws(OpenStackError) -> SecurityGroup? {
        try await neutron.securityGroups(tags: OwnershipKeys.tags(application: application) + [OwnershipKeys.addressTag(address)]).first
    }

    func create(_ body: ResourceBody) async throws(OpenStackError) -> ObservedResource {
        let neutron = try await connection.clients().neutron
        let description = "mcloud \(body.address)"
        var group = try await Self.find(body.address.rawValue, in: neutron, application: body.application)
        if group == nil {
            // A create whose answer was lost left a group with this description and maybe no tags yet.
            group = try await neutron.findSecurityGroups(name: body.name).first { $0.description == description }
        }
        let made: SecurityGroup
        if let group {
            made = group
        } else {
            made = try await neutron.createSecurityGroup(name: body.name, description: description)
        }
        return try await converge(made.id, body)
    }

    func update(_ body: ResourceBody, recorded: ResourceState) async throws(OpenStackError) -> ObservedResource {
        try await converge(recorded.providerID, body)
    }

    /// What no apply could deliver: a rule from a cluster whose egress addresses the catalog does not give.
    static func problems(_ body: ResourceBody) -> [String] {
        (body.spec["ingress"]?.arrayItems ?? []).compactMap(IngressRule.init(spec:)).compactMap(problem)
    }

    private static func problem(_ rule: IngressRule) -> String? {
        guard rule.source == "kubernetesCluster", rule.cidrs.isEmpty else { return nil }
        return "cloud \(rule.value)'s catalog entry lists no endpoints.kubernetes.egressCIDRs, so mcloud does not know where its traffic comes from; it opens a database port only to the addresses of the clusters that use it"
    }

    /// Tags the group and makes its ingress rules those of the spec: missing ones added, others removed.
    private func converge(_ id: String, _ body: ResourceBody) async throws(OpenStackError) -> ObservedResource {
        let neutron = try await connection.clients().neutron
        try await neutron.setTags(OwnershipKeys.tags(application: body.application) + [OwnershipKeys.addressTag(body.address.rawValue)], onSecurityGroup: id)
        let group = try await neutron.securityGroup(id)
        var wanted: [NeutronKey: [IngressRule]] = [:]
        var order: [NeutronKey] = []
        for item in body.spec["ingress"]?.arrayItems ?? [] {
            guard let rule = IngressRule(spec: item) else {
                throw .resourceFailed("spec.ingress item \(item.serialized(pretty: false)) has no from.kubernetesCluster, from.securityGroup or from.cidr")
            }
            if let problem = Self.problem(rule) { throw .resourceFailed(problem) }
            var remoteGroup: String?
            if rule.source == "securityGroup" {
                guard let source = try await Self.find(rule.value, in: neutron, application: body.application) else {
                    throw .resourceFailed("the security group \(rule.value) that an ingress rule names does not exist")
                }
                remoteGroup = source.id
            }
            for key in rule.remotes(groupID: remoteGroup) {
                if wanted[key] == nil { order.append(key) }
                wanted[key, default: []].append(rule)
            }
        }
        var kept = Set<NeutronKey>()
        for rule in group.rules where rule.direction == "ingress" {
            let key = NeutronKey(rule)
            if let items = wanted[key], rule.description == key.rule(for: items).description {
                kept.insert(key)
            } else if let id = rule.id {
                try await neutron.deleteRule(id)
            }
        }
        for key in order where !kept.contains(key) {
            _ = try await neutron.addRule(key.rule(for: wanted[key] ?? []), to: id)
        }
        return ObservedResource(address: body.address, providerID: id, attributes: body.document)
    }

    /// Neutron refuses to delete a group a port still uses (409 SecurityGroupInUse) until the server's ports are
    /// gone, which can lag the server's deletion: that answer is waited out.
    func delete(_ recorded: ResourceState, poller: MCloudOpenStack.Poller) async throws(OpenStackError) {
        let neutron = try await connection.clients().neutron
        _ = try await poller.poll("security group \(recorded.providerID) to be free to delete") { () async throws(OpenStackError) -> Bool? in
            do throws(OpenStackError) {
                try await neutron.deleteSecurityGroup(recorded.providerID)
                return true
            } catch {
                if error.fault?.status == 409 { return nil }
                throw error
            }
        }
    }
}
