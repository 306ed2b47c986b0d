import MCloudCore
import MCloudProvider
@testable import MCloudViews
import Testing

/// How `mcloud status` judges a rollout and rolls verdicts up: the worst wins, with its first reason, in Argo CD's
/// order (Unknown worst).
@Suite struct StatusRollupTests {
    struct RolloutCase: Sendable, CustomTestStringConvertible {
        var rollout: Rollout
        var health: StatusHealth
        var reason: String?
        var testDescription: String { "\(rollout.ready)/\(rollout.desired) ready, \(rollout.updated) updated, seen: \(rollout.observed)" }
    }

    @Test(arguments: [
        RolloutCase(rollout: Rollout(desired: 3, ready: 3, updated: 3), health: .healthy, reason: nil),
        RolloutCase(rollout: Rollout(desired: 3, ready: 1, updated: 3), health: .degraded, reason: "1 of 3 replicas ready"),
        RolloutCase(rollout: Rollout(desired: 3, ready: 3, updated: 1), health: .progressing, reason: "rolling out: 1 of 3 replicas updated"),
        RolloutCase(rollout: Rollout(desired: 3, ready: 3, updated: 3, observed: false), health: .progressing, reason: "rolling out: 3 of 3 replicas updated"),
        RolloutCase(rollout: Rollout(desired: 0, ready: 0, updated: 0), health: .healthy, reason: nil),
    ])
    func aRolloutIsJudgedAsKubectlRolloutStatusReadsIt(_ example: RolloutCase) {
        let verdict = StatusDocument.judge(example.rollout)
        #expect(verdict.health == example.health)
        #expect(verdict.reason == example.reason)
    }

    struct RollupCase: Sendable, CustomTestStringConvertible {
        var verdicts: [StatusVerdict]
        var worst: StatusVerdict
        var testDescription: String { verdicts.map(\.health.rawValue).joined(separator: ", ") }
    }

    @Test(arguments: [
        RollupCase(verdicts: [], worst: .healthy),
        RollupCase(verdicts: [.healthy, StatusVerdict(.progressing, "a")], worst: StatusVerdict(.progressing, "a")),
        RollupCase(verdicts: [StatusVerdict(.degraded, "first"), StatusVerdict(.degraded, "second")], worst: StatusVerdict(.degraded, "first")),
        RollupCase(verdicts: [StatusVerdict(.missing, "m"), StatusVerdict(.degraded, "d"), StatusVerdict(.progressing, "p")], worst: StatusVerdict(.degraded, "d")),
        RollupCase(verdicts: [StatusVerdict(.degraded, "d"), StatusVerdict(.unknown, "u")], worst: StatusVerdict(.unknown, "u")),
    ])
    func theWorstVerdictWinsWithItsFirstReason(_ example: RollupCase) {
        #expect(StatusVerdict.worst(example.verdicts) == example.worst)
    }

    @Test func aHealthyVerdictKeepsNoReason() {
        #expect(StatusVerdict(.healthy, "why").reason == nil)
    }

    /// A Deployment read from the API server: ready and updated from its status, the generation seen or not.
    @Test func aRolloutIsReadFromALiveDeployment() throws {
        let live = try JSONParser.parse(Array(#"{"kind": "Deployment", "metadata": {"generation": 4}, "spec": {"replicas": 3}, "status": {"observedGeneration": 3, "readyReplicas": 2, "updatedReplicas": 3}}"#.utf8))
        #expect(Rollout(deployment: live) == Rollout(desired: 3, ready: 2, updated: 3, observed: false))
        let service = try JSONParser.parse(Array(#"{"kind": "Service", "spec": {}}"#.utf8))
        #expect(Rollout(deployment: service) == nil)
    }

    /// A cell rolled up over two clouds, one of which could not be read, and the application over its cells.
    @Test func anUnreadCloudMakesItsCellsAndTheApplicationUnknown() {
        let cell = ResourceBody.setting(["metadata", "labels"], to: .object([(ResourceLabels.cell, .string("api.eu"))]), in: .object([("kind", .string("Deployment")), ("spec", .object([]))]))
        let resources = ["dc-a", "dc-b"].map { cloud in
            ResourceState(address: ResourceAddress("kubernetes.\(cloud).apps/v1.Deployment.ns.api"), provider: .kubernetes, cloud: cloud, providerID: "u", attributes: Dictionary(cell.objectPairs, uniquingKeysWith: { first, _ in first }))
        }
        let live = ObservedResource(address: resources[0].address, providerID: "u", attributes: resources[0].attributes, rollout: Rollout(desired: 2, ready: 2, updated: 2))
        let document = StatusDocument(application: "app", time: 0, resources: resources, readings: ["dc-a": .read([live]), "dc-b": .unreachable("no answer within 30 s (--timeout)")])
        #expect(document.cells.map(\.name) == ["api@eu"])
        #expect(document.cells.first?.sites.map(\.verdict.health) == [.healthy, .unknown])
        #expect(document.verdict == StatusVerdict(.unknown, "api@eu in dc-b: dc-b cannot be read: no answer within 30 s (--timeout)"))
        #expect(document.clouds == [StatusDocument.Cloud(name: "dc-a", up: true), StatusDocument.Cloud(name: "dc-b", up: false, reason: "no answer within 30 s (--timeout)")])
    }

    /// A switched-over cell shows its members' roles as the state records them: the standby made as `.1` is the
    /// primary now, the first primary a standby.
    @Test func aSwitchedOverCellShowsTheRolesItsMembersHaveNow() {
        let resources = (0...1).map { copy in
            let body = ResourceBody.setting(["metadata", "labels"], to: .object([(ResourceLabels.cell, .string("ledger"))]), in: .object([
                ("kind", .string("DatabaseServer")), ("spec", .object([("role", .string(copy == 0 ? "primary" : "standby"))])),
            ]))
            return ResourceState(
                address: ResourceAddress("openstack.dc-a.DatabaseServer.bank.ledger.\(copy)"), provider: .openstack, cloud: "dc-a", providerID: "s\(copy)",
                attributes: Dictionary(body.objectPairs, uniquingKeysWith: { first, _ in first })
            )
        }
        let live = resources.map { ObservedResource(address: $0.address, providerID: $0.providerID, attributes: $0.attributes) }
        let made = StatusDocument(application: "bank", time: 0, resources: resources, readings: ["dc-a": .read(live)])
        #expect(made.cells.first?.sites.first?.databases.map(\.role) == ["primary", "standby"])
        let moved = StatusDocument(application: "bank", time: 0, resources: resources, readings: ["dc-a": .read(live)], primaries: [resources[0].address: resources[1].address])
        #expect(moved.cells.first?.sites.first?.databases.map(\.role) == ["standby", "primary"])
    }
}
