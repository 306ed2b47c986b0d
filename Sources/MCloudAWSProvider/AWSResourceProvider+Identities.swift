import MCloudAWS
import MCloudCore
import MCloudProvider

/// BackupIdentity: the IAM user of a DR leg whose bucket is on AWS, under `/mcloud/` with mcloud's tags, and its
/// one inline policy, or a drill's or failover's temporary restore user under `/mcloud/restore/` (docs/security.md, H2). Its keys are made only when a VM that uses it is created
/// (`ScopedBackupKey`), never here: apply leaves no secret in the state.
extension AWSResourceProvider {
    func applyBackupIdentity(_ resource: DesiredResource, _ session: AWSSession) async throws(AWSError) -> ObservedResource {
        let identity = try Self.identity(resource.body, resource.address)
        if try await session.iam.user(named: identity.user) == nil {
            do throws(AWSError) {
                _ = try await session.iam.createUser(
                    name: identity.user, path: identity.path, tags: AWSTag.tags(resource.body, address: resource.address, cloud: cloud)
                )
            } catch where error.code == "EntityAlreadyExists" {
                // A lost answer: the first attempt made it.
            }
        }
        try await session.iam.putUserPolicy(userName: identity.user, policyName: identity.policyName, document: identity.policy)
        return ObservedResource(address: resource.address, providerID: identity.user, attributes: resource.body)
    }

    /// Deletes the user's keys and inline policies, then the user (IAM refuses a user that still has either).
    func deleteBackupIdentity(_ resource: ResourceState, _ session: AWSSession) async throws(AWSError) {
        let user = resource.providerID
        guard try await session.iam.user(named: user) != nil else { return }
        for key in try await session.iam.listAccessKeys(userName: user) {
            try await session.iam.deleteAccessKey(userName: user, id: key.id)
        }
        for policy in try await session.iam.listUserPolicies(userName: user) {
            try await session.iam.deleteUserPolicy(userName: user, policyName: policy)
        }
        try await session.iam.deleteUser(name: user)
    }

    /// The user's name, path and policy a BackupIdentity's body asks for: a leg's backup user (`access: write`), or a
    /// drill's temporary restore user (`access: restore`, with the `reportKey` its VM writes its report to).
    static func identity(_ body: JSONValue, _ address: ResourceAddress) throws(AWSError) -> (user: String, path: String, policyName: String, policy: String) {
        let read = ResourceBody(body)
        guard let user = read.string("userName"), let bucket = read.string("bucketName"), let prefix = read.string("prefix") else {
            throw .configuration("\(address) needs spec.userName, spec.bucketName and spec.prefix")
        }
        switch (read.string("access"), read.string("reportKey")) {
        case ("write", _):
            return (user, BucketIdentity.path, BackupPolicy.name, BackupPolicy.writeOnly(bucket: bucket, prefix: prefix))
        case ("restore", let reportKey?):
            return (user, BucketIdentity.restorePath, BackupPolicy.restoreName, BackupPolicy.restore(bucket: bucket, prefix: prefix, reportKey: reportKey))
        default:
            throw .configuration("\(address): spec.access must be write, or restore with spec.reportKey")
        }
    }
}

extension AWSInventory {
    /// mcloud's IAM users carrying every tag of `tags`, with their tags. IAM is global and lists users without
    /// their tags, so each user under `/mcloud/` is read once more; the cloud tag keeps two AWS clouds' users apart.
    static func users(_ session: AWSSession, tags: [String: String]) async throws(AWSError) -> [IAMClient.User] {
        var found: [IAMClient.User] = []
        for listed in try await session.iam.listUsers(pathPrefix: BucketIdentity.path) {
            guard let user = try await session.iam.user(named: listed.name), tags.allSatisfy({ user.tags[$0.key] == $0.value }) else { continue }
            found.append(user)
        }
        return found
    }
}
