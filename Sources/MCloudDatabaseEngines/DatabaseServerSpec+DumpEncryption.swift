import MCloudCore
public import MCloudSecrets

extension DatabaseServerSpec {
    /// The recipient this server's dumps are encrypted to (`DumpEncryption`), derived from the operator's age
    /// identity found through `environment`; nil for a server without a DR bucket or one that archives instead.
    public func dumpRecipient(
        environment: [String: String], application: String, server: String, recipe: Recipe, bucket: DatabaseVM.Bucket?
    ) throws(SecretsError) -> AgeRecipient? {
        guard let bucket, DumpEncryption.dumps(recipe, to: bucket) else { return nil }
        let root = SecretRoot(identity: try AgeKeyFile.load(environment: environment))
        return try DumpEncryption.identity(root: root, application: application, server: server, bucket: bucket.name).recipient
    }

    /// The identity that decrypts the recovery point of a failover's or a drill's server, when it is an encrypted
    /// dump (`<server>/<stamp>.<ext>.age`) of that server in `bucket`; nil for a plain dump or an archive.
    public func restoreIdentity(environment: [String: String], application: String, bucket: DatabaseVM.Bucket?) throws(SecretsError) -> AgeIdentity? {
        guard let bucket, let object = restore?.object, let server = DumpEncryption.server(ofEncrypted: object) else { return nil }
        let root = SecretRoot(identity: try AgeKeyFile.load(environment: environment))
        return try DumpEncryption.identity(root: root, application: application, server: server, bucket: bucket.name)
    }
}
