import Foundation
import Testing

/// A database VM's backup job gets keys only from the backup identity the catalog names for its DR leg's cloud
/// (docs/security.md, H2): without one, `plan` refuses before anything is read or made, naming the cell, the bucket
/// and the cloud, where the apply used to hand the VM mcloud's own keys halfway through.
@Suite struct BackupIdentityPlanTests {
    /// The bundled catalog with sel-msk's backup profile taken out: three of telemed's databases run on VMs and keep
    /// their DR legs in sel-msk, an OpenStack cloud, where mcloud cannot make an identity of the leg's own (a leg in an
    /// AWS cloud gets one, and needs no profile).
    @Test func aDRLegInACloudWithoutABackupIdentityFailsThePlanNamingCellBucketAndCloud() async throws {
        let folder = NSTemporaryDirectory() + "mcloud-backup-identity-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for file in try FileManager.default.contentsOfDirectory(atPath: "\(repositoryRoot)/Providers") where file.hasSuffix(".yaml") {
            let text = try String(contentsOfFile: "\(repositoryRoot)/Providers/\(file)", encoding: .utf8)
            try text.replacingOccurrences(of: ", backupProfile: sel-msk-backup", with: "").write(toFile: "\(folder)/\(file)", atomically: true, encoding: .utf8)
        }
        let run = await mcloudRun([
            "plan", "-f", "\(repositoryRoot)/Manifests/telemed", "--providers", folder, "--state", "file://\(folder)/state/state.json",
        ], environment: ["NO_COLOR": "1", "HOME": folder, "AWS_ACCESS_KEY_ID": "AKIDDEPLOY", "AWS_SECRET_ACCESS_KEY": "deploying-secret"])
        #expect(run.exitCode == 1)
        #expect(run.stdout == "")
        func refused(_ cell: String, _ bucket: String) -> String {
            "error: \(cell): its DR leg's bucket \(bucket) in sel-msk has no backup identity for the VM's backup job: set endpoints.objectStorage.backupProfile in sel-msk's catalog entry (\(folder)/selectel.yaml:38:19) to a profile of the operator's AWS files whose keys reach its backup buckets only; a VM never gets mcloud's own keys\n"
        }
        #expect(run.stderr == [
            refused("analytics", "mcloud-telemed-analytics-bfdef5e8"), refused("scheduling-db@kz", "mcloud-telemed-kz-scheduling-db-d336317c"),
            refused("scheduling-db@ru", "mcloud-telemed-ru-scheduling-db-5f6113af"), "3 database VMs without a backup identity; nothing was planned\n",
        ].joined())
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/state"))
    }
}
