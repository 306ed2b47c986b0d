import Foundation
import Testing

/// What failover, drill and --recovered refuse before they touch a cloud: each with its reason and exit 1. The bed
/// test (FailoverBedTests) runs them for real.
@Suite struct FailoverCommandTests {
    static let retailBank = ["-f", "\(repositoryRoot)/Manifests/retail-bank", "--providers", "\(repositoryRoot)/Providers"]

    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var message: String
        var testDescription: String { arguments.prefix(3).joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(arguments: ["failover", "sel-msk"], message: "error: the state records nothing: there is nothing to fail over"),
        Case(arguments: ["failover"], message: "error: missing argument CLOUD"),
        Case(arguments: ["failover", "sel-msk", "--out", "f.json", "--auto-approve"], message: "error: --out saves the plan and changes nothing, so --auto-approve does not apply"),
        Case(arguments: ["drill", "accounts-db@ru"], message: "error: the state records no DR leg of 'accounts-db@ru'"),
        Case(arguments: ["drill", "accounts-db@ru", "--timeout", "0"], message: "error: --timeout must be a whole number of seconds from 1 to 86400, not \"0\""),
        Case(arguments: ["plan", "--recovered", "sel-msk", "--no-refresh"], message: "error: --recovered reads the recovered cloud again, which --no-refresh would not"),
        Case(arguments: ["plan", "--recovered", "sel-msk", "--lose", "vk-msk"], message: "error: --recovered does not go with --lose or --lose-vendor"),
        Case(arguments: ["apply", "--recovered", "sel-msk", "plan.json"], message: "error: --recovered applies to planning; a saved plan is already planned"),
    ]

    @Test(arguments: cases)
    func refusedBeforeAnyCloudIsTouched(_ test: Case) async throws {
        let folder = NSTemporaryDirectory() + "mcloud-failover-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let run = await mcloudRun([test.arguments[0]] + Self.retailBank + ["--state", "file://\(folder)/state.json"] + test.arguments.dropFirst(), environment: ["NO_COLOR": "1", "HOME": folder])
        #expect(run.exitCode == 1)
        #expect(run.stderr.hasPrefix(test.message), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/state.json"), "nothing was written")
    }

    /// After a failover, `backups` names the legs in lost clouds and reads nothing there.
    @Test func aLegInALostCloudIsNamedAndNotRead() async throws {
        let folder = NSTemporaryDirectory() + "mcloud-failover-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let leg = #"{"address": "openstack.vk-msk.BackupBucket.retail-bank-ru.accounts-db", "provider": "openstack", "cloud": "vk-msk", "provider_id": "mcloud-retail-bank-ru-accounts-db-1", "attributes": {"kind": "BackupBucket", "metadata": {"labels": {"mcloud.io/cell": "accounts-db.ru"}, "name": "retail-bank-ru.accounts-db"}}}"#
        let state = #"{"format_version": 2, "lineage": "0b7f3c1e-2d4a-4c5b-9e8f-1a2b3c4d5e6f", "serial": 1, "application": "retail-bank", "lost": ["vk-msk"], "resources": [\#(leg)]}"# + "\n"
        try state.write(toFile: "\(folder)/state.json", atomically: true, encoding: .utf8)
        let run = await mcloudRun(["backups"] + Self.retailBank + ["--state", "file://\(folder)/state.json"], environment: ["NO_COLOR": "1", "HOME": folder])
        #expect(run.exitCode == 0, "\(run.stderr)")
        #expect(run.stderr == "note: accounts-db@ru's leg mcloud-retail-bank-ru-accounts-db-1 is in vk-msk, recorded as lost; it is not read\n")
    }

    /// A cloud the catalog does not have, named with the nearest one; the state is left as it was.
    @Test func aLostCloudMustBeInTheCatalog() async throws {
        let folder = NSTemporaryDirectory() + "mcloud-failover-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let state = #"{"format_version": 2, "lineage": "0b7f3c1e-2d4a-4c5b-9e8f-1a2b3c4d5e6f", "serial": 1, "application": "retail-bank", "resources": [{"address": "openstack.sel-msk.Volume.x", "provider": "openstack", "cloud": "sel-msk", "provider_id": "v", "attributes": {}}]}"# + "\n"
        try state.write(toFile: "\(folder)/state.json", atomically: true, encoding: .utf8)
        let failover = await mcloudRun(["failover"] + Self.retailBank + ["--state", "file://\(folder)/state.json", "sel-mks"], environment: ["NO_COLOR": "1", "HOME": folder])
        #expect(failover.exitCode == 1 && failover.stderr.contains("no cloud named 'sel-mks'; did you mean 'sel-msk'?"), "\(failover.stderr)")
        let recovered = await mcloudRun(["plan"] + Self.retailBank + ["--state", "file://\(folder)/state.json", "--recovered", "sel-msk"], environment: ["NO_COLOR": "1", "HOME": folder])
        #expect(recovered.exitCode == 1 && recovered.stderr.contains("--recovered sel-msk: the state does not record sel-msk as lost"), "\(recovered.stderr)")
        #expect(try String(contentsOfFile: "\(folder)/state.json", encoding: .utf8) == state)
    }
}
