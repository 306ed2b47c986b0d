import Foundation
import Testing

/// A database VM's backup job gets keys only from the backup identity the catalog names for its DR leg's cloud
/// (docs/security.md, H2): without one, `plan` refuses before anything is read or made, naming the cell, the bucket
/// and the cloud, where the apply used to hand the VM mcloud's own keys halfway through.
@Suite struct BackupIdentityPlanTests {
    /// The bundled catalog with aws-irl's backup profile taken out: the retail bank's EU Redis runs on a Gcore VM and
    /// keeps its DR leg in aws-irl.
    @Test func aDRLegInACloudWithoutABackupIdentityFailsThePlanNamingCellBucketAndCloud() async throws {
        let folder = NSTemporaryDirectory() + "mcloud-backup-identity-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for file in try FileManager.default.contentsOfDirectory(atPath: "\(repositoryRoot)/Providers") where file.hasSuffix(".yaml") {
            let text = try String(contentsOfFile: "\(repositoryRoot)/Providers/\(file)", encoding: .utf8)
            try text.replacingOccurrences(of: ", backupProfile: aws-irl-backup", with: "").write(toFile: "\(folder)/\(file)", atomically: true, encoding: .utf8)
        }
        let run = await mcloudRun([
            "plan", "-f", "\(repositoryRoot)/Manifests/retail-bank", "--providers", folder, "--state", "file://\(folder)/state/state.json",
        ], environment: ["NO_COLOR": "1", "HOME": folder, "AWS_ACCESS_KEY_ID": "AKIDDEPLOY", "AWS_SECRET_ACCESS_KEY": "deploying-secret"])
        #expect(run.exitCode == 1)
        #expect(run.stdout == "")
        #expect(run.stderr == """
            error: sessions-redis@eu: its DR leg's bucket mcloud-retail-bank-eu-sessions-redis-d97defed in aws-irl has no backup identity for the VM's backup job: set endpoints.objectStorage.backupProfile in aws-irl's catalog entry (\(folder)/aws.yaml:36:19) to a profile of the operator's AWS files whose keys reach its backup buckets only; a VM never gets mcloud's own keys
            1 database VM without a backup identity; nothing was planned

            """)
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/state"))
    }
}
