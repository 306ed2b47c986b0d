/// The password a database cell's standbys log in to its primary with, and the salt of the verifier the primary
/// keeps, both derived from the root like a client's (`ClientCredential`) under a kind of their own, so no dependent
/// service's name can ever give the same secret. The primary's monitor (`monitor`) has a credential of its own, the
/// account's name in place of the replicator's.
public struct ReplicationCredential: Sendable {
    /// The engine user the standbys replicate as.
    public static let user = "replicator"
    /// The engine user a MariaDB/MySQL primary reads its standbys' replica status as, with the one privilege that allows it.
    public static let monitor = "replication_monitor"

    public let password: GeneratedPassword
    let salt: [UInt8]

    /// `account` is `user` or `monitor`.
    public init(root: SecretRoot, application: String, cell: String, account: String = Self.user, generation: UInt32 = 1) throws(SecretsError) {
        let purpose = SecretPurpose(application: application, cell: cell, service: account, kind: .replication, generation: generation)
        password = try GeneratedPassword(root: root, purpose: purpose)
        // The key domain, not the password's: the salt is unrelated to the password's characters.
        salt = Array(try root.keyMaterial(for: purpose).prefix(16))
    }

    /// What the primary stores in place of the password.
    public func verifier(_ scheme: PasswordVerifier.Scheme) throws(SecretsError) -> String {
        try PasswordVerifier.verifier(scheme, password: password.value, salt: salt)
    }
}
