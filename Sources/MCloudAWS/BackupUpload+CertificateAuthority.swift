import Foundation

extension BackupUpload {
    /// The CA that signs a DR bucket endpoint's certificate, as a VM needs it to verify the endpoint: the PEM file
    /// `AWS_CA_BUNDLE` names in mcloud's environment (the AWS tools' own setting for it), nil when unset, so that the
    /// VM trusts its system's public CAs.
    public static func certificateAuthority(environment: [String: String]) throws(AWSError) -> String? {
        guard let path = environment["AWS_CA_BUNDLE"], !path.isEmpty else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN CERTIFICATE-----") else {
            throw .configuration("AWS_CA_BUNDLE names \(path), which is not a readable PEM certificate file")
        }
        return text
    }
}
