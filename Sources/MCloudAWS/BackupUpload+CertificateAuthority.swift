import Foundation

extension BackupUpload {
    /// Where Debian keeps its public CAs, the store a database VM's Debian image has too.
    public static let systemStore = "/etc/ssl/certs/ca-certificates.crt"

    /// The PEM file `AWS_CA_BUNDLE` names in mcloud's environment (the AWS tools' own setting), whole: what mcloud's
    /// own requests trust in place of the system's store (`AWSTransport`); nil when it is unset.
    public static func caBundle(environment: [String: String]) throws(AWSError) -> String? {
        guard let path = environment["AWS_CA_BUNDLE"], !path.isEmpty else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8), text.contains(beginCertificate) else {
            throw .configuration("AWS_CA_BUNDLE names \(path), which is not a readable PEM certificate file")
        }
        return text
    }

    /// The CAs a VM must be given to verify a DR bucket's endpoint: the certificates of `caBundle` that the system
    /// store at `systemStore` lacks; nil when there are none, so that the VM trusts its own public CAs. An
    /// `AWS_CA_BUNDLE` is often a whole system bundle (Debian's is over 200 KB), or one with a private CA appended:
    /// the VM gets the private CA only, added to the public ones it already has (docs/dr.md).
    public static func certificateAuthority(environment: [String: String], systemStore: String = systemStore) throws(AWSError) -> String? {
        guard let bundle = try caBundle(environment: environment) else { return nil }
        let publicOnes = systemStore == Self.systemStore ? systemBodies : bodies(ofFile: systemStore)
        let missing = certificates(in: bundle).filter { !publicOnes.contains($0.body) }
        return missing.isEmpty ? nil : missing.map { "\($0.block)\n" }.joined()
    }

    /// The system store's certificates, read once: every database server's user data, at plan and at create, asks.
    private static let systemBodies = bodies(ofFile: systemStore)

    private static func bodies(ofFile path: String) -> Set<String> {
        Set((FileManager.default.contents(atPath: path).flatMap { String(data: $0, encoding: .utf8) }).map(certificates)?.map(\.body) ?? [])
    }

    private static let beginCertificate = "-----BEGIN CERTIFICATE-----"
    private static let endCertificate = "-----END CERTIFICATE-----"

    /// Each certificate of a PEM text: its block's lines as written (without line ends) joined by LF, and its base64
    /// body without whitespace to compare by. Read line by line as bytes: a system bundle is some 3,500 lines, and
    /// every database server's user data reads the operator's.
    static func certificates(in text: String) -> [(block: String, body: String)] {
        let begin = Array(beginCertificate.utf8), end = Array(endCertificate.utf8)
        let blank: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r")]
        var found: [(block: String, body: String)] = []
        var lines: [[UInt8]]?
        for raw in text.utf8.split(separator: UInt8(ascii: "\n")) {
            let line = Array(raw.drop { blank.contains($0) }.reversed().drop { blank.contains($0) }.reversed())
            if line == begin {
                lines = [line]
            } else if line == end, let block = lines {
                let body = block.dropFirst().joined()
                found.append((
                    block: (block + [line]).map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n"),
                    body: String(decoding: body, as: UTF8.self)
                ))
                lines = nil
            } else {
                lines?.append(line)
            }
        }
        return found
    }
}
