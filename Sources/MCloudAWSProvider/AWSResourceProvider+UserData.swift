import MCloudAWS
import MCloudCompression
import MCloudCore
import MCloudDatabaseEngines
import MCloudProvider
import MCloudSecrets

/// A database VM's user data as EC2 gets it, gzipped (cloud-init reads it so; docs/databases.md, "User data"), and
/// the plan-time check that it fits the 16,384 bytes EC2 accepts.
extension AWSResourceProvider {
    /// What the server `read` describes runs, with AWS's standard image family unless it names one.
    static func serverSpec(_ read: ResourceBody) -> DatabaseServerSpec {
        DatabaseServerSpec(
            engine: read.string("engine") ?? "", version: read.string("version") ?? "", port: read.int("port"), image: read.image,
            defaultFamily: VMImage.standard(for: .aws).family, backup: read.backup, restore: read.restore, access: read.databaseAccess,
            replication: read.replication
        )
    }

    /// The user data of the server `read` describes, with its DR legs' keys, its disks and its primary's address.
    func userData(
        _ server: DatabaseServerSpec, _ read: ResourceBody, backupKeys: [(name: String, value: String)], restoreKeys: [(name: String, value: String)],
        disks: [String], primaryAddress: String?
    ) throws(AWSError) -> [UInt8] {
        let recipe: Recipe
        switch server.recipe() {
        case .success(let found): recipe = found
        case .failure(let missing): throw .configuration("\(read.address): \(missing.message)")
        }
        if let problem = server.replicationProblem(recipe) { throw .configuration("\(read.address): \(problem)") }
        let authority = try BackupUpload.certificateAuthority(environment: settings.environment)
        let vm: DatabaseVM
        do throws(SecretsError) {
            vm = try server.vmWithSecrets(
                recipe: recipe, address: read.address.rawValue, server: read.name, application: read.application, disks: disks, secrets: backupKeys,
                restoreSecrets: restoreKeys, primaryAddress: primaryAddress, environment: settings.environment, certificateAuthority: authority
            )
        } catch {
            throw .configuration("\(read.address): \(error.description)")
        }
        do throws(CompressionError) {
            return try Gzip.compress(Array(DatabaseUserData.render(vm).utf8))
        } catch {
            throw .configuration("\(read.address): the user data: \(error.description)")
        }
    }

    /// Why the server's user data would not fit EC2, measured at plan time with keys, disks and an address as long as
    /// the real ones (which exist only once apply makes them); nil when it fits, or when what it needs is missing
    /// (the other plan-time checks say so).
    func userDataProblem(_ read: ResourceBody) -> String? {
        let server = Self.serverSpec(read)
        guard let bytes = try? userData(
            server, read, backupKeys: DatabaseServerSpec.standInKeys(for: server.backup?.location),
            restoreKeys: DatabaseServerSpec.standInKeys(for: server.restore?.location), disks: ["/dev/nvme1n1"],
            primaryAddress: server.replication.map { _ in "255.255.255.255" }
        ) else { return nil }
        guard bytes.count > EC2Client.userDataLimit else { return nil }
        return "its user data is \(bytes.count) bytes gzipped, over the \(EC2Client.userDataLimit) EC2 accepts: fewer services that use it, or a cloud whose VMs take more (docs/databases.md, \"User data\")"
    }
}
