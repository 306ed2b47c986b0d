import Foundation

extension BackupUpload {
    /// Where Debian keeps its public CAs, the store a database VM's Debian image has too.
    public static let systemStore = "/etc/ssl/certs/ca-certificates.crt"

    /// The CAs a VM must be given to verify a DR bucket's endpoint: the certificates of the PEM file `AWS_CA_BUNDLE`
    /// names in mcloud's environment (the AWS tools' own setting for it) that the system store at `systemStore`
    /// lacks; nil when it is unset or holds nothing else, so that the VM trusts its own public CAs. An
    /// `AWS_CA_BUNDLE` is often a whole system bundle (Debian's is over 200 KB), or one with a private CA appended:
    /// the VM gets the private CA only, added to the public ones it already has (docs/dr.md).
    public static func certificateAuthority(environment: [String: String], systemStore: String = systemStore) throws(AWSError) -> String? {
        guard let path = environment["AWS_CA_BUNDLE"], !path.isEmpty else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8), text.contains(beginCertificate) else {
            throw .configuration("AWS_CA_BUNDLE names \(path), which is not a readable PEM certificate file")
        }
        let publicOnes = Set((FileManager.default.contents(atPath: systemStore).flatMap { String(data: $0, encoding: .utf8) }).map(certificates)?.map(\.body) ?? [])
        let missing = certificates(in: text).filter { !publicOnes.contains($0.body) }
        return missing.isEmpty ? nil : missing.map { "\($0.block)\n" }.joined()
    }

    private static let beginCertificate = "-----BEGIN CERTIFICATE-----"
    private static let endCertificate = "-----END CERTIFICATE-----"

    /// Each certificate of a PEM text: its block as written, and its base64 body without whitespace to compare by.
    static func certificates(in text: String) -> [(block: String, body: String)] {
        var found: [(block: String, body: String)] = []
        var rest = text[...]
        while let begin = rest.range(of: beginCertificate), let end = rest.range(of: endCertificate, range: begin.upperBound..<rest.endIndex) {
            let body = rest[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
            found.append((block: String(rest[begin.lowerBound..<end.upperBound]), body: String(body)))
            rest = rest[end.upperBound...]
        }
        return found
    }
}
