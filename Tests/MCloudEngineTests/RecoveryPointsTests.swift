import MCloudCore
@testable import MCloudEngine
import MCloudProvider
import Testing

/// A failover's restores decided from the state and the new desired resources, and what plans do with lost clouds
/// and retained resources.
@Suite struct RecoveryPointsTests {
    typealias F = EngineFixtures

    /// A database cell's resource as rendering makes it: labels naming the application and the cell.
    static func resource(_ kind: ResourceKind, cloud: String, role: String? = nil, name: String = "bank-ru.ledger.0") -> (ResourceAddress, JSONValue) {
        let address = ResourceAddress(provider: "memory", cloud: cloud, kind: kind, name: name)
        let labels: JSONValue = .object([(ResourceLabels.partOf, .string("bank")), (ResourceLabels.cell, .string("ledger.ru"))])
        var spec: [(String, JSONValue)] = []
        if let role { spec.append(("role", .string(role))) }
        if kind == .backupBucket { spec.append(("bucketName", .string("mcloud-ledger-\(cloud)"))) }
        let body: JSONValue = .object([
            ("apiVersion", .string(ResourceBody.infrastructureAPIVersion)), ("kind", .string(kind.rawValue)),
            ("metadata", .object([("name", .string(name)), ("address", .string(address.rawValue)), ("labels", labels)])), ("spec", .object(spec)),
        ])
        return (address, body)
    }

    static func recorded(_ kind: ResourceKind, cloud: String, role: String? = nil, name: String = "bank-ru.ledger.0") -> ResourceState {
        let (address, body) = resource(kind, cloud: cloud, role: role, name: name)
        return ResourceState(address: address, provider: "memory", cloud: cloud, providerID: "id-\(address)", attributes: Dictionary(body.objectPairs, uniquingKeysWith: { first, _ in first }))
    }

    static func desired(_ kind: ResourceKind, cloud: String, role: String? = nil) -> DesiredResource {
        let (address, body) = resource(kind, cloud: cloud, role: role)
        return DesiredResource(address: address, provider: "memory", cloud: cloud, type: kind, body: body, dependencies: [])
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var recorded: [ResourceState]
        var desired: [DesiredResource]
        /// The new primaries that restore, with their legs' clouds; or the error's text.
        var expected: Result<[String], EngineError>
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "a lost VM primary restores from its leg in a reachable cloud",
            recorded: [recorded(.databaseServer, cloud: "ru-1", role: "primary"), recorded(.backupBucket, cloud: "ru-2", name: "bank-ru.ledger")],
            desired: [desired(.databaseServer, cloud: "ru-2", role: "primary")],
            expected: .success(["memory.ru-2.DatabaseServer.bank-ru.ledger.0 <- ru-2"])
        ),
        Case(
            name: "a standby is not restored, and a primary made already is not made again",
            recorded: [
                recorded(.databaseServer, cloud: "ru-1", role: "primary"), recorded(.backupBucket, cloud: "ru-2", name: "bank-ru.ledger"),
                recorded(.databaseServer, cloud: "ru-3", role: "primary"),
            ],
            desired: [desired(.databaseServer, cloud: "ru-3", role: "primary")],
            expected: .success([])
        ),
        Case(
            name: "a cell without a DR leg starts empty, managed or not",
            recorded: [recorded(.databaseServer, cloud: "ru-1", role: "primary")],
            desired: [desired(.managedDatabase, cloud: "ru-2")],
            expected: .success(["memory.ru-2.ManagedDatabase.bank-ru.ledger.0 <- nothing"])
        ),
        Case(
            name: "the leg lost with the primary leaves nothing to restore from",
            recorded: [recorded(.databaseServer, cloud: "ru-1", role: "primary"), recorded(.backupBucket, cloud: "ru-1", name: "bank-ru.ledger")],
            desired: [desired(.databaseServer, cloud: "ru-2", role: "primary")],
            expected: .failure(EngineError("cannot fail over with the data:\n  ledger@ru: nothing to restore it from: its DR leg was in ru-1, lost too"))
        ),
        Case(
            name: "a new primary on a managed engine cannot load the dump",
            recorded: [recorded(.databaseServer, cloud: "ru-1", role: "primary"), recorded(.backupBucket, cloud: "ru-2", name: "bank-ru.ledger")],
            desired: [desired(.managedDatabase, cloud: "ru-2")],
            expected: .failure(EngineError("cannot fail over with the data:\n  ledger@ru: its new primary would be ru-2's managed engine, which mcloud cannot load a backup into; a failover restores into database VMs"))
        ),
        Case(
            name: "a lost managed primary left no dump in its leg",
            recorded: [recorded(.managedDatabase, cloud: "ru-1"), recorded(.backupBucket, cloud: "ru-2", name: "bank-ru.ledger")],
            desired: [desired(.databaseServer, cloud: "ru-2", role: "primary")],
            expected: .failure(EngineError("cannot fail over with the data:\n  ledger@ru: its lost primary was ru-1's managed engine, whose backups stay in that cloud; its DR leg holds no dump to restore"))
        ),
    ]

    @Test(arguments: cases)
    func theRestoresAFailoverNeeds(_ test: Case) {
        let state = State(lineage: State().lineage, serial: 1, resources: test.recorded)
        let result = Result { () throws(EngineError) in try RecoveryPoints.needs(desired: test.desired, state: state, lost: ["ru-1"]) }
        switch (result, test.expected) {
        case (.success(let needs), .success(let expected)):
            #expect(needs.map { "\($0.server) <- \($0.leg?.cloud ?? "nothing")" } == expected)
            #expect(needs.allSatisfy { $0.cell == "ledger@ru" && $0.prefix == "bank-ru.ledger.0/" })
        case (.failure(let error), .failure(let expected)):
            #expect(error.message == expected.message)
        default:
            Issue.record("got \(result), expected \(test.expected)")
        }
    }

    @Test func theNewestBackupOfTheLostServerIsTheRecoveryPoint() throws {
        let need = RecoveryPoints.Need(
            cell: "ledger@ru", server: "memory.ru-2.DatabaseServer.bank-ru.ledger.0",
            lostServer: Self.recorded(.databaseServer, cloud: "ru-1", role: "primary"), leg: Self.recorded(.backupBucket, cloud: "ru-2", name: "bank-ru.ledger")
        )
        let backups = [
            BackupObject(key: "bank-ru.ledger.0/20261201T030000Z.sql.gz", time: 100, size: 1, sha256: nil),
            BackupObject(key: "bank-ru.ledger.0/20261202T030000Z.sql.gz", time: 200, size: 2, sha256: nil),
            BackupObject(key: "bank-ru.other.0/20261203T030000Z.sql.gz", time: 300, size: 3, sha256: nil),
        ]
        #expect(RecoveryPoints.newest(backups, for: need)?.key == "bank-ru.ledger.0/20261202T030000Z.sql.gz")
        #expect(RecoveryPoints.newest(Array(backups.suffix(1)), for: need) == nil)
    }

    @Test func theStateRecordsAServerWithoutTheRecoveryPointItWasMadeWith() {
        let point = RecoveryPoints.Point(
            server: "memory.ru-2.DatabaseServer.bank-ru.ledger.0",
            recoveryPoint: RecoveryPoint(
                location: BucketLocation(cloud: "ru-2", bucket: "b", region: "r"), object: "bank-ru.ledger.0/x.sql.gz", takenAt: "2026-12-02T03:00:00Z"
            )
        )
        let server = Self.desired(.databaseServer, cloud: "ru-2", role: "primary")
        let restoring = RecoveryPoints.applying([point], to: [server])[0]
        #expect(restoring.body.value(at: ["spec", "restore", "object"])?.stringValue == "bank-ru.ledger.0/x.sql.gz")
        #expect(FieldDiff.same(RecoveryPoints.consumed(restoring.body), server.body))
    }

    /// What the state records in a lost cloud is neither read nor deleted; a retained resource stays; destroy takes it.
    @Test func aPlanLeavesLostCloudsAndRetainedResourcesAsTheyAre() async throws {
        let provider = MemoryProvider()
        let kept: ResourceAddress = "memory.lab.Deployment.shop.old"
        let lostOne = ResourceState(address: "memory.gone.Deployment.shop.lost", provider: "memory", cloud: "gone", providerID: "id-lost", attributes: [:])
        var state = State(lineage: State().lineage, serial: 3, resources: [F.recorded(kept, F.body("Deployment", "old", replicas: 1)), lostOne])
        let request = PlanMaker.Request(
            operation: .apply, application: "shop", desired: [], state: state, refresh: false, inputDigest: "sha256:0", losing: ["gone"], retaining: [kept]
        )
        let clouds = ["lab": F.lab, "gone": F.cloud("gone")]
        let plan = try await PlanMaker.plan(request, clouds: clouds, catalog: provider)
        #expect(plan.changes.isEmpty)
        #expect(plan.lost == ["gone"] && plan.newlyLost == ["gone"] && plan.newlyRetained == [kept])
        #expect(plan.kept == [kept, lostOne.address].sorted())
        #expect(plan.hasChanges, "the state must record the lost cloud and the retained resource")

        state.lost = ["gone"]
        state.retained = [kept]
        let again = PlanMaker.Request(operation: .apply, application: "shop", desired: [], state: state, refresh: false, inputDigest: "sha256:0")
        #expect(!(try await PlanMaker.plan(again, clouds: clouds, catalog: provider)).hasChanges)

        let destroy = PlanMaker.Request(operation: .destroy, application: "shop", desired: [], state: state, refresh: false, inputDigest: "sha256:0")
        #expect(try await PlanMaker.plan(destroy, clouds: clouds, catalog: provider).changes.map(\.address) == [kept])

        let recovered = PlanMaker.Request(operation: .apply, application: "shop", desired: [], state: state, refresh: false, inputDigest: "sha256:0", recovering: ["gone"])
        let cleaning = try await PlanMaker.plan(recovered, clouds: clouds, catalog: provider)
        #expect(cleaning.changes.map { "\($0.action.rawValue) \($0.address)" } == ["delete \(lostOne.address)"])
        #expect(cleaning.recovered == ["gone"] && cleaning.lost.isEmpty)
        let unknown = PlanMaker.Request(operation: .apply, application: "shop", desired: [], state: state, refresh: false, inputDigest: "sha256:0", recovering: ["lab"])
        await #expect(throws: EngineError.self) { try await PlanMaker.plan(unknown, clouds: clouds, catalog: provider) }
    }
}
