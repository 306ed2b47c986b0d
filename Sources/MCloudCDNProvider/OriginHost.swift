import Foundation

/// The host name under which the CDN reaches an origin's Ingress. Rendered Ingresses name no host (any host
/// reaches them, see IngressBuilder), so the name is derived from the Ingress address alone, the same way every
/// time: `kubernetes.<cloud>.networking.k8s.io/v1.Ingress.<namespace>.<name>` gives
/// `<name>.<namespace>.<cloud>.<zone>`. DNS for `*.<cloud>.<zone>` points at that cluster's ingress load balancer.
public enum OriginHost {
    public static let zone = "origins.mcloud.internal"
    static let ingressInfix = ".networking.k8s.io/v1.Ingress."

    /// The host for an Ingress address; nil for an address that is not a rendered Ingress.
    public static func host(ingress address: String) -> String? {
        guard address.hasPrefix("kubernetes."), let infix = address.range(of: ingressInfix) else { return nil }
        let cloud = address[address.index(address.startIndex, offsetBy: "kubernetes.".count)..<infix.lowerBound]
        let object = address[infix.upperBound...].split(separator: ".", omittingEmptySubsequences: false)
        guard !cloud.isEmpty, !cloud.contains("."), object.count == 2, !object[0].isEmpty, !object[1].isEmpty else { return nil }
        return "\(object[1]).\(object[0]).\(cloud).\(zone)"
    }

    /// The Ingress address and cloud a host was derived from; nil for any other host.
    public static func ingress(host: String) -> (address: String, cloud: String)? {
        guard host.hasSuffix("." + zone) else { return nil }
        let parts = host.dropLast(zone.count + 1).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        return ("kubernetes.\(parts[2])\(ingressInfix)\(parts[1]).\(parts[0])", String(parts[2]))
    }
}
