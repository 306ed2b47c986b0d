/// What a generated secret is for; every field goes into its derivation, so changing any one gives an unrelated
/// secret. A rotation bumps `generation`, the one field state may keep (it is not secret).
public struct SecretPurpose: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A database user's password for one dependent service.
        case password
        /// The seed of an Ed25519 key: an application's certificate authority or a database server's TLS key.
        case certificateKey
        /// The salt of a password's verifier (SCRAM's), so the verifier in a database VM's user data is the same at
        /// every plan and apply.
        case verifierSalt
        /// The pass of a DR leg's encrypted archive (pgBackRest's `repo1-cipher-pass`): derived, never stored, so any
        /// machine with the age key file opens the archive after the primary's cloud is lost. The service is
        /// `dr/<bucket>`, and a rotation bumps the generation, which names a new repository (docs/dr.md).
        case archiveCipher
        /// The password of the user a database cell's standbys replicate as, and the salt of its verifier.
        case replication
        /// The age X25519 identity of a DR leg's encrypted dumps (`AgeIdentity(root:purpose:)`): the primary gets only
        /// its recipient, a restoring server the identity; derived, never stored, so the leg's cloud holds only
        /// ciphertext and no key that opens it. Service and generation as for `archiveCipher` (docs/dr.md).
        case dumpIdentity
        /// The seed of the Ed25519 key that signs a database cell's switchover orders (`SwitchoverOrder`): its members
        /// hold only the public key and act on no order it did not sign (docs/databases.md, "Switchover").
        case switchoverKey
    }

    public var application: String
    /// The database cell (its name in the manifest) the secret opens.
    public var cell: String
    /// The service that depends on the cell and holds the secret.
    public var service: String
    public var kind: Kind
    public var generation: UInt32

    public init(application: String, cell: String, service: String, kind: Kind, generation: UInt32 = 1) {
        self.application = application
        self.cell = cell
        self.service = service
        self.kind = kind
        self.generation = generation
    }

    /// The derivation's label; `block` numbers the further outputs one secret may need.
    func label(_ domain: DerivationLabel.Domain = .purpose, block: UInt32) -> DerivationLabel {
        DerivationLabel(domain, [application, cell, service, kind.rawValue, String(generation), String(block)])
    }

    public var description: String { "\(kind.rawValue) of \(service) for \(application)/\(cell), generation \(generation)" }
}
