import Foundation
import MCloudCompression
import MCloudCore
@testable import MCloudDatabaseEngines
import MCloudSecrets
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
    func theLargestUserDataGzippedFitsNovaAndEC2WithRoomToGrow(primary: Bool) throws {
        let text = Array(DatabaseUserData.render(try Self.member(primary: primary)).utf8)
        let sent = try Gzip.compress(text)
        #expect(try Gzip.decompress(sent) == text)
        #expect(sent.count <= 16_384, "\(sent.count) bytes gzipped of \(text.count)")
        #expect(Data(sent).base64EncodedString().utf8.count <= 65_535)
    }
}
