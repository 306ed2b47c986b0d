import MCloudCore
import MCloudOpenStack
import Foundation

/// One `spec.ingress` item of a SecurityGroup and the Neutron rule it becomes. The rule's description records
/// where the traffic comes from in the manifests' terms (`mcloud: kubernetesCluster sel-msk`), so the rule reads
/// back as the item it was made from.
struct IngressRule: Sendable, Hashable {
    var protocolName: String
    var port: Int?
    /// `kubernetesCluster`, `securityGroup` or `cidr`; for rules made outside mcloud, `cidr` or `remoteGroupID`.
    var source: String
    var value: String
    /// A cluster's egress addresses (the catalog's `endpoints.kubernetes.egressCIDRs`), sorted: one Neutron rule each.
    var cidrs: [String]

    static let descriptionPrefix = "mcloud: "

    init(protocolName: String, port: Int?, source: String, value: String, cidrs: [String] = []) {
        self.protocolName = protocolName.lowercased()
        self.port = port
        self.source = source
        self.value = value
        self.cidrs = cidrs.sorted()
    }

    /// An item of `spec.ingress`; nil when it names no source mcloud knows.
    init?(spec item: JSONValue) {
        let pairs = item["from"]?.objectPairs ?? []
        guard let from = pairs.first(where: { ["kubernetesCluster", "securityGroup", "cidr"].contains($0.0) }), let value = from.1.stringValue else {
            return nil
        }
        let cidrs = pairs.first { $0.0 == "cidrs" }?.1.arrayItems.compactMap(\.stringValue) ?? []
        self.init(protocolName: item["protocol"]?.stringValue ?? "tcp", port: item["port"]?.intValue, source: from.0, value: value, cidrs: cidrs)
    }

    /// The spec items a Neutron rule stands for: those its description lists, else one item for its remote.
    static func items(of rule: SecurityGroupRule) -> [IngressRule] {
        let protocolName = rule.protocolName ?? "any"
        if let text = rule.description, text.hasPrefix(descriptionPrefix) {
            let listed = text.dropFirst(descriptionPrefix.count).split(separator: ";").compactMap { entry -> IngressRule? in
                let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { return nil }
                let cidrs = parts[0] == "kubernetesCluster" ? [rule.remotePrefix].compactMap { $0 } : []
                return IngressRule(protocolName: protocolName, port: rule.portMin, source: parts[0], value: parts[1], cidrs: cidrs)
            }
            if !listed.isEmpty { return listed }
        }
        let (source, value) = rule.remoteGroupID.map { ("remoteGroupID", $0) } ?? ("cidr", rule.remotePrefix ?? "0.0.0.0/0")
        return [IngressRule(protocolName: protocolName, port: rule.portMin, source: source, value: value)]
    }

    /// Items that differ only in their CIDRs, as read back one Neutron rule at a time, made one again.
    static func merged(_ items: [IngressRule]) -> [IngressRule] {
        var result: [IngressRule] = []
        for item in items {
            if let index = result.firstIndex(where: { $0.protocolName == item.protocolName && $0.port == item.port && $0.source == item.source && $0.value == item.value }) {
                result[index].cidrs = Array(Set(result[index].cidrs + item.cidrs)).sorted()
            } else {
                result.append(item)
            }
        }
        return result
    }

    /// The spec item, with the protocol written as `spelling` has it when they mean the same.
    func spec(spelling: String?) -> JSONValue {
        var pairs: [(String, JSONValue)] = [("protocol", .string(spelling?.lowercased() == protocolName ? spelling ?? protocolName : protocolName.uppercased()))]
        if let port { pairs.append(("port", .int(port))) }
        pairs.append(("from", .object([(source, .string(value))] + (cidrs.isEmpty ? [] : [("cidrs", .array(cidrs.map(JSONValue.string)))]))))
        return .object(pairs)
    }

    /// Where Neutron sees the traffic come from: a cluster's egress ranges, another group, or a range. Items that
    /// end up with the same remote share one Neutron rule, which refuses duplicates.
    func remotes(groupID: String?) -> [NeutronKey] {
        if let groupID { return [NeutronKey(protocolName: protocolName, port: port, remotePrefix: nil, remoteGroupID: groupID)] }
        let prefixes = source == "kubernetesCluster" ? cidrs : [value]
        return prefixes.map { NeutronKey(protocolName: protocolName, port: port, remotePrefix: $0, remoteGroupID: nil) }
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
