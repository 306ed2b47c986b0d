import MCloudCore
public import MCloudSecrets

extension DatabaseServerSpec {
    /// The cell's archive as this server keeps it: a PostgreSQL primary whose DR bucket is reached over TLS archives
    /// there with pgBackRest instead of dumping (`PostgreSQLArchive`), its cipher pass derived from the operator's age
    /// identity found through `environment`. A standby holds the same repository, its primary's, ready for when a
    /// switchover makes it the primary: one database, one archive, across its timelines. `certificateAuthority` is the
    /// PEM of the CA that signs the bucket endpoint's certificate (the provider reads the file `AWS_CA_BUNDLE`
    /// names), nil for a public one; see `endpointAuthority`.
    public func archive(
        environment: [String: String], application: String, server: String, recipe: Recipe, bucket: DatabaseVM.Bucket?, certificateAuthority: String?
    ) throws(SecretsError) -> PostgreSQLArchive.Repository? {
        guard PostgreSQLArchive.supports(recipe), let bucket, PostgreSQLArchive.canArchive(to: bucket) else { return nil }
        let root = SecretRoot(identity: try AgeKeyFile.load(environment: environment))
        let owner = if case .standby(_, let primary, _, _) = replication { primary } else { server }
        return try PostgreSQLArchive.Repository(
            root: root, application: application, server: owner, bucket: bucket, certificateAuthority: Self.endpointAuthority(certificateAuthority, for: bucket)
        )
    }

    /// The archive a failover's or a drill's server restores from: when `spec.restore` names a repository
    /// (`<server>/g<generation>`, `PostgreSQLArchive.repository(named:)`) rather than a dump, with the pass of that
    /// server's archive and the recovery point's bucket and keys; nil for a dump.
    public func restoreArchive(
        environment: [String: String], application: String, recipe: Recipe, bucket: DatabaseVM.Bucket?, certificateAuthority: String?
    ) throws(SecretsError) -> PostgreSQLArchive.Repository? {
        guard PostgreSQLArchive.supports(recipe), let bucket, let point = restore, let named = PostgreSQLArchive.repository(named: point.object) else { return nil }
        let root = SecretRoot(identity: try AgeKeyFile.load(environment: environment))
        return try PostgreSQLArchive.Repository(
            root: root, application: application, server: named.server, generation: named.generation, bucket: bucket,
            certificateAuthority: Self.endpointAuthority(certificateAuthority, for: bucket)
        )
    }

    /// The CA a VM gets for `bucket`: the operator's private one (`BackupUpload.certificateAuthority`) only for an
    /// S3-compatible endpoint of its own; AWS's S3 presents a public certificate the VM's system store verifies, and
    /// a private CA kept for mcloud's own requests (a TLS-inspecting proxy's) has nothing to do on the VM.
    static func endpointAuthority(_ authority: String?, for bucket: DatabaseVM.Bucket) -> String? {
        bucket.endpoint == nil ? nil : authority
    }
}
