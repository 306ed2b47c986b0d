import Foundation
import MCloudCompression
import MCloudCore
@testable import MCloudDatabaseEngines
import MCloudSecrets
import MCloudTestSupport
import Testing

/// The largest user data mcloud writes, a PostgreSQL member of a cell with a standby that archives, with ten
/// clients: as the providers send it, gzipped, it fits what the clouds accept (Nova 65,535 characters of base64, EC2
/// 16,384 bytes; the certificate, keys and verifiers do not compress, so EC2's limit binds first); in plain text it would not fit Nova (a primary made after the switchover agent
/// came was refused by the bed's Nova: "Invalid input for field/attribute user_data").
@Suite struct UserDataSizeTests {
    static func member(primary: Bool) throws -> DatabaseVM {
        var vm = try PostgreSQLArchiveTests.vm()
        let clients = (0..<10).map { index in
            DatabaseAccess.Client(service: "service-\(index)@eu", user: "service_\(index)", database: "service_\(index)", cidrs: ["10.\(index).0.0/16", "192.168.\(index).0/24"])
        }
        let access = DatabaseAccess(cell: "ledger@eu", names: ["ledger.bank-eu.svc", "ledger.bank-eu.svc.cluster.local"], clients: clients)
        let replication: DatabaseReplication = primary
            ? .primary(standbys: ["standby_1"], cidrs: DatabaseReplication.privateRanges)
            : .standby(name: "standby_1", primary: "bank.ledger.0", port: 5432, cidrs: DatabaseReplication.privateRanges)
        vm.access = try ServerAccess.derive(
            root: SwitchoverOrderTests.root(), application: "bank", server: primary ? "bank.ledger.0" : "bank.ledger.1", engine: .postgresql, access: access,
            replication: replication
        )
        return vm
    }

    @Test(arguments: [true, false])
    func aPostgreSQLMembersUserDataGzippedFitsNovaAndEC2(primary: Bool) throws {
        let text = Array(DatabaseUserData.render(try Self.member(primary: primary)).utf8)
        let sent = try Gzip.compress(text)
        #expect(try Gzip.decompress(sent) == text)
        #expect(sent.count <= 16_384, "\(sent.count) bytes gzipped of \(text.count)")
        #expect(Data(sent).base64EncodedString().utf8.count <= 65_535)
    }

    /// Every engine of the Debian 12 catalog, as a primary with a standby where it replicates, ten clients where it
    /// makes users, a DR leg with AWS-length keys, its schedule and its dumps' recipient: gzipped, within EC2's 16 KB.
    @Test(arguments: EngineSample.debian12.map(\.engine))
    func everyEnginesLargestUserDataGzippedFitsEC2(engine: String) throws {
        let sample = try #require(EngineSample.debian12.first { $0.engine == engine })
        let recipe = try #require(EngineCatalog.recipe(engine: sample.engine, version: sample.version, family: .debian12))
        let bucket = DatabaseVM.Bucket(
            name: "mcloud-bank-ledger-4e1ae16e", region: "eu-west-1", endpoint: nil,
            secrets: [("AWS_ACCESS_KEY_ID", "AKIA" + String(repeating: "X", count: 16)), ("AWS_SECRET_ACCESS_KEY", String(repeating: "s", count: 40))]
        )
        var vm = DatabaseVM(
            address: "aws.eu-west-1.DatabaseServer.bank.ledger.0", server: "bank.ledger.0", recipe: recipe, port: sample.port, disks: ["/dev/nvme1n1"],
            backup: DatabaseVM.Backup(schedule: "0 3 * * *", retentionDays: 14, bucket: bucket)
        )
        if Engine(named: engine)?.passwordScheme != nil {
            let clients = (0..<10).map { index in
                DatabaseAccess.Client(service: "service-\(index)@eu", user: "service_\(index)", database: "service_\(index)", cidrs: ["10.\(index).0.0/16"])
            }
            let access = DatabaseAccess(cell: "ledger@eu", names: ["ledger.bank-eu.svc"], clients: clients)
            let replication: DatabaseReplication? = recipe.replicates ? .primary(standbys: ["standby_1"], cidrs: DatabaseReplication.privateRanges) : nil
            vm.access = try ServerAccess.derive(
                root: SwitchoverOrderTests.root(), application: "bank", server: "bank.ledger.0", engine: try #require(Engine(named: engine)), access: access,
                replication: replication
            )
        }
        // Its dumps encrypted to the leg (and MariaDB's binary log shipped with them).
        vm.dumpRecipient = try AgeIdentity(secretKey: [UInt8](repeating: 9, count: 32)).recipient
        let text = Array(DatabaseUserData.render(vm).utf8)
        let sent = try Gzip.compress(text)
        #expect(sent.count <= 16_384, "\(engine): \(sent.count) bytes gzipped of \(text.count)")
    }
}
