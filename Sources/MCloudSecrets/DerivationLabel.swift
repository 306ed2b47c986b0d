/// The `info` of an HKDF derivation: a domain and fields, each length-prefixed, so no two different field lists give
/// the same bytes ("ab" + "c" never equals "a" + "bc"). Domains keep the operator's secrets apart from the keys the
/// encryptors derive.
struct DerivationLabel: Sendable, Hashable {
    enum Domain: String {
        case purpose = "mcloud/v1/purpose"
        /// Raw key material (`SecretRoot.keyMaterial`), apart from passwords so neither reveals the other.
        case key = "mcloud/v1/key"
        case age = "mcloud/v1/age"
        case sops = "mcloud/v1/sops"
    }

    let bytes: [UInt8]

    init(_ domain: Domain, _ fields: [[UInt8]]) {
        var bytes: [UInt8] = []
        for field in [Array(domain.rawValue.utf8)] + fields {
            let count = UInt32(field.count)
            bytes += [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)] + field
        }
        self.bytes = bytes
    }

    init(_ domain: Domain, _ fields: [String]) {
        self.init(domain, fields.map { Array($0.utf8) })
    }
}
