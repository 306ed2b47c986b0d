import MCloudCore
@testable import MCloudEngine
import MCloudProvider
import MCloudState
import Testing

/// A switched-over cell's members keep the roles they were made with: a plan that would make one again (copy `.0`
/// would boot a second primary) or delete one (the primary, with the data) is refused until the cell is switched
/// back; a plan that leaves them be, and destroy, go on.
@Suite struct SwitchedOverCellTests {
    typealias Fill = EndpointSliceFillTests

    static func switchedOver() async throws -> (MemoryProvider, FileStateBackend, [DesiredResource]) {
        let provider = MemoryProvider()
        let backend = try ApplierTests.lockedBackend()
        let desired = Fill.connection(Fill.server("db.0")) + [Fill.server("db.1")]
        _ = try await Fill.apply(desired, provider, backend)
        let recorded = try #require(try backend.read())
        try await StateRecorder(state: recorded, backend: backend).record(primary: Fill.server("db.1").address, of: Fill.server("db.0").address)
        return (provider, backend, desired)
    }

    @Test(arguments: [
        ("replace", "cannot replace memory.lab.DatabaseServer.shop.db.0: its cell was switched over to memory.lab.DatabaseServer.shop.db.1"),
        ("delete", "cannot delete memory.lab.DatabaseServer.shop.db.1: its cell was switched over to memory.lab.DatabaseServer.shop.db.1"),
    ])
    func aPlanThatWouldMakeOrDeleteAMemberIsRefused(change: String, message: String) async throws {
        let (provider, backend, desired) = try await Self.switchedOver()
        let changed = change == "replace"
            ? Fill.connection(Fill.server("db.0", image: "debian-13")) + [Fill.server("db.1")]
            : Fill.connection(Fill.server("db.0"))
        await #expect {
            _ = try await Fill.plan(changed, provider, state: try backend.read())
        } throws: { error in
            "\(error)".contains(message) && "\(error)".contains("switch the cell back first (mcloud switchover CELL --to standby_0")
        }
        let unchanged = try await Fill.plan(desired, provider, state: try backend.read())
        #expect(unchanged.changes.allSatisfy { $0.action == .noOp || $0.action == .update })
    }

    @Test func destroyDeletesASwitchedOverCell() async throws {
        let (provider, backend, _) = try await Self.switchedOver()
        let request = PlanMaker.Request(operation: .destroy, application: "shop", desired: [], state: try backend.read(), refresh: true, inputDigest: "sha256:0")
        let plan = try await PlanMaker.plan(request, clouds: ["lab": EngineFixtures.lab], catalog: provider)
        #expect(plan.changes.filter { $0.action == .delete }.count == 4)
    }
}
