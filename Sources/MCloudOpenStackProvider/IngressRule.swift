import MCloudCore
import MCloudOpenStack

/// One `spec.ingress` item of a SecurityGroup and the Neutron rule it becomes. The rule's description records
/// where the traffic comes from in the manifests' terms (`mcloud: kubernetesCluster sel-msk`), so the rule reads
/// back as the item it was made from.
struct IngressRule: Sendable, Hashable {
    var protocolName: String
    var port: Int?
    /// `kubernetesCluster`, `securityGroup` or `cidr`; for rules made outside mcloud, `cidr` or `remoteGroupID`.
    var source: String
    var value: String

    static let descriptionPrefix = "mcloud: "

    init(protocolName: String, port: Int?, source: String, value: String) {
        self.protocolName = protocolName.lowercased()
        self.port = port
        self.source = source
        self.value = value
    }

    /// An item of `spec.ingress`; nil when it names no source mcloud knows.
    init?(spec item: JSONValue) {
        guard let from = item["from"]?.objectPairs.first, let value = from.1.stringValue,
              ["kubernetesCluster", "securityGroup", "cidr"].contains(from.0) else { return nil }
        self.init(protocolName: item["protocol"]?.stringValue ?? "tcp", port: item["port"]?.intValue, source: from.0, value: value)
    }

    /// The spec items a Neutron rule stands for: those its description lists, else one item for its remote.
    static func items(of rule: SecurityGroupRule) -> [IngressRule] {
        let protocolName = rule.protocolName ?? "any"
        if let text = rule.description, text.hasPrefix(descriptionPrefix) {
            let listed = text.dropFirst(descriptionPrefix.count).split(separator: ";").compactMap { entry -> IngressRule? in
                let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1).map(String.init)
                return parts.count == 2 ? IngressRule(protocolName: protocolName, port: rule.portMin, source: parts[0], value: parts[1]) : nil
            }
            if !listed.isEmpty { return listed }
        }
        let (source, value) = rule.remoteGroupID.map { ("remoteGroupID", $0) } ?? ("cidr", rule.remotePrefix ?? "0.0.0.0/0")
        return [IngressRule(protocolName: protocolName, port: rule.portMin, source: source, value: value)]
    }

    /// The spec item, with the protocol written as `spelling` has it when they mean the same.
    func spec(spelling: String?) -> JSONValue {
        var pairs: [(String, JSONValue)] = [("protocol", .string(spelling?.lowercased() == protocolName ? spelling ?? protocolName : protocolName.uppercased()))]
        if let port { pairs.append(("port", .int(port))) }
        pairs.append(("from", .object([(source, .string(value))])))
        return .object(pairs)
    }

    /// Where Neutron sees the traffic come from. A Kubernetes cluster's address range is not known to mcloud, so
    /// its traffic is allowed from anywhere, to this port and protocol only (docs/openstack.md); items that end up
    /// with the same remote share one Neutron rule, which refuses duplicates.
    func remote(groupID: String?) -> NeutronKey {
        NeutronKey(protocolName: protocolName, port: port, remotePrefix: groupID == nil ? (source == "cidr" ? value : "0.0.0.0/0") : nil, remoteGroupID: groupID)
    }

    var descriptionEntry: String { "\(source) \(value)" }
}

/// What makes a Neutron rule distinct.
struct NeutronKey: Sendable, Hashable {
    var protocolName: String
    var port: Int?
    var remotePrefix: String?
    var remoteGroupID: String?

    init(protocolName: String, port: Int?, remotePrefix: String?, remoteGroupID: String?) {
        self.protocolName = protocolName
        self.port = port
        self.remotePrefix = remotePrefix
        self.remoteGroupID = remoteGroupID
    }

    init(_ rule: SecurityGroupRule) {
        self.init(protocolName: rule.protocolName ?? "any", port: rule.portMin, remotePrefix: rule.remotePrefix, remoteGroupID: rule.remoteGroupID)
    }

    /// The rule for these items, which its description lists.
    func rule(for items: [IngressRule]) -> SecurityGroupRule {
        SecurityGroupRule(
            protocolName: protocolName, portMin: port, portMax: port, remotePrefix: remotePrefix, remoteGroupID: remoteGroupID,
            description: IngressRule.descriptionPrefix + items.map(\.descriptionEntry).joined(separator: "; ")
        )
    }
}
