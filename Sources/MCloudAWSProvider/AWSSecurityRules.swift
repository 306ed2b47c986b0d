import MCloudAWS
import MCloudCore
import Foundation

/// A SecurityGroup's `spec.ingress` as EC2 rules. Each rule's description names its source as the manifests do
/// (`mcloud kubernetesCluster=aws-fra`), which is how refresh reads the rules back.
struct AWSSecurityRules {
    static let descriptionPrefix = "mcloud "

    let cloud: String
    let settings: AWSResourceProvider.Settings
    let session: AWSSession
    /// The address of the group being built, and its id: a rule from itself names its own group.
    let ownAddress: String
    let ownID: String

    func rules(_ body: JSONValue) async throws(AWSError) -> [EC2Client.IngressRule] {
        var rules: [EC2Client.IngressRule] = []
        for item in body.value(at: ["spec", "ingress"])?.arrayItems ?? [] {
            let ipProtocol = (item["protocol"]?.stringValue ?? "TCP").lowercased()
            let port = item["port"]?.doubleValue.map { Int($0) }
            let ports = port.map { ($0, $0) } ?? (ipProtocol == "tcp" || ipProtocol == "udp" ? (0, 65535) : (-1, -1))
            guard let (key, value) = item["from"]?.objectPairs.first, let source = value.stringValue else {
                throw .configuration("\(ownAddress): an ingress rule has no from")
            }
            var rule = EC2Client.IngressRule(ipProtocol: ipProtocol, fromPort: ports.0, toPort: ports.1, description: "\(Self.descriptionPrefix)\(key)=\(source)")
            // The cluster's egress ranges from the catalog: one EC2 rule each.
            let cidrs = item.value(at: ["from", "cidrs"])?.arrayItems.compactMap(\.stringValue) ?? []
            if key == "kubernetesCluster", !cidrs.isEmpty {
                rules += cidrs.map { cidr in
                    var ranged = rule
                    ranged.cidr = cidr
                    return ranged
                }
                continue
            }
            switch key {
            case "kubernetesCluster": rule.cidr = try await clusterCIDR(source)
            case "securityGroup": rule.sourceGroupID = try await groupID(source)
            case "cidr": rule.cidr = source
            default: throw .configuration("\(ownAddress): ingress from \(key) is not something the aws provider knows")
            }
            rules.append(rule)
        }
        return rules
    }

    /// The same rule whatever its description: what EC2 compares.
    static func key(_ rule: EC2Client.IngressRule) -> String {
        "\(rule.ipProtocol)|\(rule.fromPort ?? -1)|\(rule.toPort ?? -1)|\(rule.cidr ?? "")|\(rule.sourceGroupID ?? "")"
    }

    private func clusterCIDR(_ cluster: String) async throws(AWSError) -> String {
        if let configured = settings.clusterCIDR(cluster) { return configured }
        if cluster == cloud, let cidr = try await session.ec2.defaultVPCCIDR() { return cidr }
        let variable = "MCLOUD_AWS_CLUSTER_CIDR_" + cluster.uppercased().replacingOccurrences(of: "-", with: "_")
        throw .configuration(
            "\(ownAddress): mcloud does not know where cluster \(cluster)'s traffic comes from: list its endpoints.kubernetes.egressCIDRs in the catalog (or set \(variable))"
        )
    }

    private func groupID(_ address: String) async throws(AWSError) -> String {
        if address == ownAddress { return ownID }
        guard let group = try await session.ec2.describeSecurityGroups(tags: [AWSTag.address: address]).first else {
            throw .configuration("\(ownAddress): security group \(address) does not exist in \(cloud)")
        }
        return group.id
    }
}
