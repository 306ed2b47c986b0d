/// One `dependsOn` edge's credential: the password of the dependent service's user on one database, and the salt of
/// its verifier, both derived from the root, so the engine's stored verifier (`PasswordVerifier`) and the service's
/// password agree on every machine without either being stored.
public struct ClientCredential: Sendable {
    public let password: GeneratedPassword
    let salt: [UInt8]

    public init(root: SecretRoot, application: String, cell: String, service: String, generation: UInt32 = 1) throws(SecretsError) {
        password = try GeneratedPassword(
            root: root, purpose: SecretPurpose(application: application, cell: cell, service: service, kind: .password, generation: generation)
        )
        let saltPurpose = SecretPurpose(application: application, cell: cell, service: service, kind: .verifierSalt, generation: generation)
        salt = Array(try root.keyMaterial(for: saltPurpose).prefix(16))
    }

    /// What the engine stores in place of the password.
    public func verifier(_ scheme: PasswordVerifier.Scheme) throws(SecretsError) -> String {
        try PasswordVerifier.verifier(scheme, password: password.value, salt: salt)
    }
}
