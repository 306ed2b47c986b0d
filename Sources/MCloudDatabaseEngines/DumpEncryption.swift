public import MCloudCore
public import MCloudSecrets

/// Dumps encrypted on the VM with age before they leave it (docs/dr.md, "Encrypted dumps"): `mcloud-backup` pipes
/// every dump through `age -r <recipient>` and uploads `<stamp>.<ext>.age`. The recipient is public and is all the
/// primary holds; the identity that decrypts is derived by mcloud from the operator's age identity for the leg
/// (`SecretPurpose.Kind.dumpIdentity`) and given only to a server that restores, in a root-only 0600 key file. So
/// neither the leg's cloud nor the primary's holds a key that opens the dumps.
public enum DumpEncryption {
    /// Where a restoring server's identity is: root-only, 0600, read by `age -d -i`.
    public static let identityPath = "/etc/mcloud/restore.key"
    /// The suffix of an encrypted dump's object; an object without it is an older plain dump.
    public static let suffix = ".age"
    /// Each encrypted object begins with age's version line.
    public static let header = "age-encryption.org/v1"
    /// The generation of the leg's identity; a rotation would bump it (not built: the dumps expire by retention).
    public static let generation: UInt32 = 1

    /// The identity's purpose: the dumps' server as the cell and the bucket as the service, so each leg of each
    /// server has its own key.
    public static func purpose(application: String, server: String, bucket: String, generation: UInt32 = generation) -> SecretPurpose {
        SecretPurpose(application: application, cell: server, service: "dr/\(bucket)", kind: .dumpIdentity, generation: generation)
    }

    /// The identity of `server`'s dumps in `bucket`, derived from `root`.
    public static func identity(root: SecretRoot, application: String, server: String, bucket: String) throws(SecretsError) -> AgeIdentity {
        try AgeIdentity(root: root, purpose: purpose(application: application, server: server, bucket: bucket))
    }

    /// Whether the server with this recipe dumps into `bucket` (and so encrypts): every server with a DR bucket but a
    /// PostgreSQL primary that archives there, which pgBackRest encrypts.
    public static func dumps(_ recipe: Recipe, to bucket: DatabaseVM.Bucket?) -> Bool {
        guard let bucket else { return false }
        return !(PostgreSQLArchive.supports(recipe) && PostgreSQLArchive.canArchive(to: bucket))
    }

    /// The server whose dump `object` is (`<server>/<stamp>.<ext>.age`), nil for a plain dump or anything else: only
    /// an encrypted dump needs the identity, so an older plain one restores without it.
    public static func server(ofEncrypted object: String) -> String? {
        guard object.hasSuffix(suffix), let slash = object.firstIndex(of: "/"), slash != object.startIndex else { return nil }
        return String(object[..<slash])
    }

    /// What keeps a server that would upload dumps from being made, for the providers' plan-time problems: the
    /// recipient is derived from the operator's age identity, and a dump is never uploaded in plain text.
    public static func problems(engine: String, backup: BackupSettings?, environment: [String: String]) -> [String] {
        guard let location = backup?.location else { return [] }
        // A PostgreSQL primary that archives is PostgreSQLArchive.problems' to check.
        if Engine(named: engine) == .postgresql, PostgreSQLArchive.canArchive(to: DatabaseVM.Bucket(location, secrets: [])) { return [] }
        do {
            _ = try AgeKeyFile.load(environment: environment)
        } catch {
            return ["its dumps in the DR bucket \(location.bucket) are encrypted to an age key derived from the operator's age identity, which is not available: \(error.description)"]
        }
        return []
    }
}
