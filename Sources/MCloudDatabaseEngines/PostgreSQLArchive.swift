public import MCloudCore
public import MCloudSecrets

/// PostgreSQL's continuous archive in the DR leg's bucket with pgBackRest (docs/dr.md): every WAL segment pushed as
/// PostgreSQL closes it (`archive_timeout` bounds the wait), full backups on the manifest's schedule, everything
/// encrypted on the VM with the repository cipher, whose pass is derived from the operator's root and never stored.
/// It replaces the `pg_dumpall` dumps for PostgreSQL servers whose bucket is reached over TLS (pgBackRest has no
/// plain-HTTP S3). `mcloud-archive` is its one script: `setup` at first boot, `backup` from the schedule, `status`
/// every minute, `restore` for a failover's or a drill's new server.
public enum PostgreSQLArchive {
    /// One stanza per repository: the repository path already names the server.
    public static let stanza = "mcloud"
    /// pgBackRest's own configuration, root:postgres 0640: the cipher pass and the bucket's keys.
    public static let configurationPath = "/etc/pgbackrest/pgbackrest.conf"
    /// The recovery point's repository, for `restore` and the `restore_command` it writes.
    public static let restoreConfigurationPath = "/etc/pgbackrest/restore.conf"
    /// cloud-init writes files as root before the postgres user exists: they wait here, root-only, until installed.
    static let stagedConfigurationPath = "/etc/mcloud/archive/pgbackrest.conf"
    static let stagedRestorePath = "/etc/mcloud/archive/restore.conf"
    public static let script = "/usr/local/sbin/mcloud-archive"
    /// Seconds PostgreSQL waits before it closes a segment that has writes: the RPO's bound, with the push time.
    public static let archiveTimeout = 30

    /// One encrypted repository: the bucket and its keys, the endpoint's CA, the path (`/<server>/g<generation>`)
    /// and the cipher pass. Its description hides the pass and the keys.
    public struct Repository: Sendable, CustomStringConvertible {
        public var bucket: DatabaseVM.Bucket
        /// PEM of the CAs that sign the endpoint's certificate and the VM's system store lacks; nil for a public one.
        public var certificateAuthority: String?
        /// The server whose archive this is: the first part of the path and the cell of the pass's purpose.
        public var server: String
        public var generation: UInt32
        public var cipherPass: String

        public init(bucket: DatabaseVM.Bucket, certificateAuthority: String?, server: String, generation: UInt32, cipherPass: String) {
            self.bucket = bucket
            self.certificateAuthority = certificateAuthority
            self.server = server
            self.generation = generation
            self.cipherPass = cipherPass
        }

        /// The repository of `server` in `bucket`, its pass derived from `root`.
        public init(
            root: SecretRoot, application: String, server: String, generation: UInt32 = 1, bucket: DatabaseVM.Bucket, certificateAuthority: String?
        ) throws(SecretsError) {
            let pass = try GeneratedPassword(root: root, purpose: PostgreSQLArchive.purpose(application: application, server: server, bucket: bucket.name, generation: generation))
            self.init(bucket: bucket, certificateAuthority: certificateAuthority, server: server, generation: generation, cipherPass: pass.value)
        }

        /// `<server>/g<generation>`: a new generation (a rotated pass) is a new repository, as pgBackRest cannot
        /// re-encrypt one.
        public var path: String { "\(server)/g\(generation)" }

        public var description: String { "archive s3://\(bucket.name)/\(path)" }
    }

    /// The server and generation of a repository path, `<server>/g<generation>`, the server a name mcloud gives
    /// (lower-case letters, digits, `.` and `-`); nil for anything else, a dump's key included. The path comes from a
    /// status object in the bucket and goes into a new server's user data, so only this form is taken.
    public static func repository(named path: String) -> (server: String, generation: UInt32)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...253).contains(parts[0].count),
              parts[0].allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "." || $0 == "-") }),
              parts[1].first == "g", parts[1].count <= 11, let generation = UInt32(parts[1].dropFirst()), generation > 0 else { return nil }
        return (String(parts[0]), generation)
    }

    /// The pass's purpose: the archive's server as the cell, and the bucket as the service, so each leg has its own.
    public static func purpose(application: String, server: String, bucket: String, generation: UInt32) -> SecretPurpose {
        SecretPurpose(application: application, cell: server, service: "dr/\(bucket)", kind: .archiveCipher, generation: generation)
    }

    /// Whether a bucket can hold an archive: pgBackRest reaches S3 only over TLS, so an `http://` endpoint keeps the
    /// dumps; and it reads, lists and deletes under its path, which keys that may only upload (an AWS leg's own user,
    /// `BackupPolicy.writeOnly`) cannot, so those keep the dumps too until the leg's user gets `BackupPolicy.archive`.
    public static func canArchive(to bucket: DatabaseVM.Bucket) -> Bool {
        !bucket.writeOnly && (bucket.endpoint.map { $0.lowercased().hasPrefix("https://") } ?? true)
    }

    /// What keeps a server that would archive from being made, for the providers' plan-time problems: the pass is
    /// derived from the operator's age identity, so without it the server could only fail as it is created.
    public static func problems(engine: String, backup: BackupSettings?, environment: [String: String]) -> [String] {
        guard Engine(named: engine) == .postgresql, let location = backup?.location, canArchive(to: DatabaseVM.Bucket(location, secrets: [])) else { return [] }
        do {
            _ = try AgeKeyFile.load(environment: environment)
        } catch {
            return ["its archive in the DR bucket \(location.bucket) is encrypted with a pass derived from the operator's age identity, which is not available: \(error.description)"]
        }
        return []
    }

    /// Whether the recipe's server archives with pgBackRest: Debian's PostgreSQL layout only. Postgres Pro keeps its
    /// dumps (its data directory and binaries are elsewhere, and it ships pg_probackup of its own).
    public static func supports(_ recipe: Recipe) -> Bool { recipe.engine == .postgresql }

    /// The endpoint's host and port: AWS's regional S3 name on 443 when there is none.
    static func endpoint(_ bucket: DatabaseVM.Bucket) -> (host: String, port: Int, pathStyle: Bool) {
        guard let url = bucket.endpoint else { return ("s3.\(bucket.region).amazonaws.com", 443, false) }
        let parts = url.split(separator: "/", omittingEmptySubsequences: true)
        // `https://host:port/...`: the scheme, then the authority.
        let authority = parts.count > 1 && url.contains("://") ? parts[1] : parts.first ?? ""
        if let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]) {
            return (String(authority[..<colon]), port, true)
        }
        return (String(authority), 443, true)
    }

    /// pgbackrest.conf for `repository`, the cluster in `dataDirectory` on `port`. Every value is one line: the
    /// keys, names and the pass hold no line break (`BackupUpload.checked`, `GeneratedPassword`).
    public static func configuration(_ repository: Repository, dataDirectory: String, port: Int) -> String {
        let (host, endpointPort, pathStyle) = endpoint(repository.bucket)
        let secret = Dictionary(repository.bucket.secrets.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        var global = [
            "repo1-type=s3", "repo1-s3-bucket=\(repository.bucket.name)", "repo1-s3-endpoint=\(host)", "repo1-storage-port=\(endpointPort)",
            "repo1-s3-uri-style=\(pathStyle ? "path" : "host")", "repo1-s3-region=\(repository.bucket.region)",
        ]
        if let key = secret["AWS_ACCESS_KEY_ID"], let value = secret["AWS_SECRET_ACCESS_KEY"] {
            global += ["repo1-s3-key=\(key)", "repo1-s3-key-secret=\(value)"]
            if let token = secret["AWS_SESSION_TOKEN"] { global.append("repo1-s3-token=\(token)") }
        } else {
            // No keys in the user data: the instance profile's, read from the metadata service as root would.
            global.append("repo1-s3-key-type=auto")
        }
        global += [
            "repo1-path=/\(repository.path)", "repo1-cipher-type=aes-256-cbc", "repo1-cipher-pass=\(repository.cipherPass)",
            // One object per group of small files: an empty cluster is about 1,000 files, and each is a request.
            "repo1-bundle=y", "repo1-retention-full=2", "process-max=2", "start-fast=y", "compress-type=gz",
            "log-level-console=warn", "log-level-file=info",
        ]
        return "# Written by mcloud: pgBackRest's repository in the DR bucket (docs/dr.md). Holds the cipher pass: root:postgres 0640.\n"
            + "[global]\n" + global.map { $0 + "\n" }.joined()
            + "\n[\(stanza)]\npg1-path=\(dataDirectory)\npg1-port=\(port)\npg1-socket-path=/var/run/postgresql\n"
    }

    /// A recovery target as pgBackRest and PostgreSQL both read it: `2026-12-05T22:27:00Z` as `2026-12-05 22:27:00+00`.
    public static func target(_ rfc3339: String) -> String {
        let text = String(rfc3339.map { $0 == "T" ? " " : $0 })
        return text.hasSuffix("Z") ? String(text.dropLast()) + "+00" : text
    }
}
