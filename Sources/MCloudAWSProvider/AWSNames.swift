import MCloudAWS
import MCloudCrypto
import Foundation
import MCloudHTTP

/// The names mcloud gives AWS resources, derived from addresses so that a retried or repeated apply finds the same
/// resource, each within its service's naming rules.
enum AWSNames {
    /// `mcloud-<name>-<hash>`: lowercase letters, digits and single hyphens, at most 63 characters, as S3 bucket
    /// names (which are global) and RDS identifiers both require. The hash of the address keeps two clouds' or two
    /// kinds' resources apart.
    static func bucket(address: String, name: String) -> String { scoped(address: address, name: name) }

    static func database(address: String, name: String) -> String { scoped(address: address, name: name) }

    static func securityGroup(name: String) -> String { "mcloud-\(name)" }

    /// Up to 64 ASCII characters: the same address and body give the same token, a changed body a new one.
    static func clientToken(address: String, digest: String) -> String {
        "mcloud-" + String(hash(address + "\n" + digest).prefix(40))
    }

    static func hash(_ text: String) -> String { Hex.lowercase(SHA2.sha256(Array(text.utf8))) }

    private static func scoped(address: String, name: String) -> String {
        let suffix = "-" + hash(address).prefix(8)
        var slug = ""
        for character in name.lowercased() {
            let allowed = character.isASCII && (character.isLetter || character.isNumber)
            if allowed { slug.append(character) } else if !slug.hasSuffix("-") { slug.append("-") }
        }
        let body = String(("mcloud-" + slug).prefix(63 - suffix.count))
        return String(body.reversed().drop { $0 == "-" }.reversed()) + suffix
    }
}

/// EC2 and RDS sizes for a flavor: the smallest of the current general-purpose (4 GiB per vCPU), compute (2 GiB)
/// or memory (8 GiB) families that has at least the vCPUs and the memory asked for.
enum AWSInstanceType {
    private static let sizes: [(name: String, vcpu: Int)] = [
        ("large", 2), ("xlarge", 4), ("2xlarge", 8), ("4xlarge", 16), ("8xlarge", 32), ("12xlarge", 48), ("16xlarge", 64), ("24xlarge", 96),
        ("32xlarge", 128),
    ]
    private static let families: [(name: String, memoryPerVCPU: Int)] = [("c6i", 2), ("m6i", 4), ("r6i", 8)]

    /// `m6i.xlarge` for 4 vCPU and 16 GiB; RDS (`database`) has no compute family and prefixes `db.`.
    static func name(vcpu: Double, memoryGiB: Double, database: Bool = false) -> String {
        let ratio = memoryGiB / max(vcpu, 1)
        let family = families.filter { !database || $0.name != "c6i" }.first { Double($0.memoryPerVCPU) >= ratio } ?? families[families.count - 1]
        let needed = max(vcpu, memoryGiB / Double(family.memoryPerVCPU))
        let size = sizes.first { Double($0.vcpu) >= needed } ?? sizes[sizes.count - 1]
        return (database ? "db." : "") + "\(family.name).\(size.name)"
    }

    /// The vCPUs and memory of a type this table knows, or nil.
    static func resources(_ type: String) -> (vcpu: Int, memoryGiB: Int)? {
        let parts = type.split(separator: ".").suffix(2)
        guard parts.count == 2, let family = families.first(where: { $0.name == parts.first.map(String.init) }),
            let size = sizes.first(where: { $0.name == parts.last.map(String.init) })
        else { return nil }
        return (size.vcpu, size.vcpu * family.memoryPerVCPU)
    }
}
