import Foundation
import MCloudCore
import MCloudOpenStack
import MCloudTestSupport
import Testing

/// `mcloud drill` of a PostgreSQL cell that archives, on the beds, under a write load: the ledger applied with its DR
/// leg behind moto's TLS front, its primary booted from its user data in the container bed and writing a row a second
/// with its commit time; the drill restores the archive's newest point into a scratch server (booted here from the
/// user data the drill made, as the hypervisor would) and must report an RPO of at most 60 s (archive_timeout 30 s
/// and the push), with every row committed more than a minute before the drill began in the scratch server. Fails,
/// never skips, without the beds.
@Suite(.serialized, .timeLimit(.minutes(30))) struct DrillArchiveBedTests {
    static let psql = "runuser -u postgres -- psql -X -Atq -v ON_ERROR_STOP=1"

    @Test func aDrillOfAnArchivingCellUnderLoadReportsAnRPOOfAtMostAMinute() async throws {
        let bed = try LedgerBed(archives: true)
        let (primary, scratch) = ("da-\(bed.run)-p", "da-\(bed.run)-s")
        func cleanUp() async {
            for name in [primary, scratch] { await bed.container.destroy(name) }
            _ = await bed.run("destroy", ["--auto-approve"])
        }
        do {
            try await Self.check(bed, primary: primary, scratch: scratch)
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }

    static func check(_ bed: LedgerBed, primary: String, scratch: String) async throws {
        let apply = await bed.run("apply", ["--auto-approve"])
        #expect(apply.exitCode == 0, "\(apply.stdout)\(apply.stderr)")
        let server = try #require(try await bed.servers(address: bed.address("dc-a")).first)
        try await bed.boot(primary, server: server.id)
        // A row a second, each id logged with its commit time once its commit returned.
        _ = try await bed.container.shell(primary, "\(psql) -c 'CREATE TABLE ticks (id int PRIMARY KEY, at timestamptz NOT NULL)'")
        let load = """
            id=0
            while [ ! -e /root/load.stop ]; do
              id=$((id + 1))
              if at=$(\(psql) -c "INSERT INTO ticks VALUES ($id, clock_timestamp()) RETURNING extract(epoch FROM at)"); then echo "$id $at" >>/root/load.acked; fi
              sleep 1
            done

            """
        _ = try await bed.container.shell(primary, "cat >/root/load.sh", input: Data(load.utf8))
        _ = try await bed.container.shell(primary, "systemd-run --quiet --collect --unit mcloud-load bash /root/load.sh")
        try await Task.sleep(for: .seconds(75))

        let began = Date().timeIntervalSince1970
        async let drilled = bed.run("drill", ["ledger", "--timeout", "900", "--json"])
        let made = try await bed.scratchServer()
        try await bed.boot(scratch, server: made.id)
        let drill = await drilled
        _ = try await bed.container.shell(primary, "touch /root/load.stop")
        #expect(drill.exitCode == 0, "\(drill.stdout)\(drill.stderr)")
        let report = try JSONParser.parse(Array(drill.stdout.utf8))
        #expect(report["passed"] == .bool(true), "\(drill.stdout)")
        let rpo = try #require(report["rpo_seconds"]?.intValue, "\(drill.stdout)")
        #expect(rpo <= 60, "RPO \(rpo) s")

        // Counted: the acknowledged rows committed before the drill began, against the scratch server's.
        let acknowledged = try await bed.container.shell(primary, "cat /root/load.acked").split(separator: "\n").compactMap { line -> (Int, Double)? in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let id = Int(parts[0]), let at = Double(parts[1]) else { return nil }
            return (id, at)
        }
        let restored = Set(try await bed.container.shell(scratch, "\(psql) -c 'SELECT id FROM ticks'").split(separator: "\n").compactMap { Int($0) })
        let before = acknowledged.filter { $0.1 < began }
        let lost = before.filter { !restored.contains($0.0) }
        print("drill under load: RPO \(rpo) s; \(before.count) rows acknowledged before the drill, \(restored.count) restored, \(lost.count) of them missing")
        #expect(before.count >= 60, "the load acknowledged \(before.count) rows")
        #expect(lost.allSatisfy { $0.1 >= began - 60 }, "rows older than a minute are missing: \(lost.map(\.0))")
    }
}
