public import MCloudCore
public import MCloudSecrets

extension DatabaseServerSpec {
    /// `vm` given everything derived from the operator's age identity found through `environment`: its TLS files and
    /// users, its archive or the recipient of its dumps, and for a failover's or a drill's server the archive or
    /// identity it restores with. Both IaaS providers render their user data from it, at create time and, with
    /// stand-in keys, disks and addresses as long as the real ones, at plan time to check its size.
    public func vmWithSecrets(
        recipe: Recipe, address: String, server: String, application: String, disks: [String], secrets: [(name: String, value: String)],
        restoreSecrets: [(name: String, value: String)], primaryAddress: String?, environment: [String: String], certificateAuthority: String?
    ) throws(SecretsError) -> DatabaseVM {
        var vm = vm(
            recipe: recipe, address: address, server: server, disks: disks, secrets: secrets, restoreSecrets: restoreSecrets,
            access: try serverAccess(environment: environment, application: application, server: server, primaryAddress: primaryAddress)
        )
        vm.archive = try archive(
            environment: environment, application: application, server: server, recipe: recipe, bucket: vm.backup?.bucket, certificateAuthority: certificateAuthority
        )
        let restoreBucket = vm.recoveryPoint?.bucket
        vm.recoveryPoint?.archive = try restoreArchive(
            environment: environment, application: application, recipe: recipe, bucket: restoreBucket, certificateAuthority: certificateAuthority
        )
        vm.dumpRecipient = try dumpRecipient(environment: environment, application: application, server: server, recipe: recipe, bucket: vm.backup?.bucket)
        vm.recoveryPoint?.identity = try restoreIdentity(environment: environment, application: application, bucket: restoreBucket)
        return vm
    }

    /// Keys as long as the real ones a bucket at `location` gives (an AWS access key and secret), for rendering the user
    /// data at plan time, before apply mints or resolves them; none without a bucket.
    public static func standInKeys(for location: BucketLocation?) -> [(name: String, value: String)] {
        guard location != nil else { return [] }
        return [(name: "AWS_ACCESS_KEY_ID", value: String(repeating: "A", count: 20)), (name: "AWS_SECRET_ACCESS_KEY", value: String(repeating: "s", count: 40))]
    }
}
