import MCloudCore
@testable import MCloudEngine
import MCloudProvider
import Testing

@Suite struct ChangeSetTests {
    typealias F = EngineFixtures
    static let address: ResourceAddress = "memory.lab.Deployment.shop.web"

    /// One address: what the manifests want, what the state records and what the cloud reports
    /// (`live: nil` with `refreshed: true` means the cloud has nothing).
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var desired: JSONValue?
        var recorded: JSONValue?
        var live: JSONValue?
        var refreshed = true
        var action: ResourceChange.Action?
        var reason: String
        var drift: [String] = []

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "new resource", desired: F.body("Deployment", "web", replicas: 2), action: .create, reason: "not yet created"),
        Case(
            name: "unchanged", desired: F.body("Deployment", "web", replicas: 2), recorded: F.body("Deployment", "web", replicas: 2),
            live: F.body("Deployment", "web", replicas: 2), action: .noOp, reason: "up to date"
        ),
        Case(
            name: "replicas changed in the manifests", desired: F.body("Deployment", "web", replicas: 3),
            recorded: F.body("Deployment", "web", replicas: 2), live: F.body("Deployment", "web", replicas: 2), action: .update,
            reason: "changed in the manifests"
        ),
        Case(
            name: "replicas changed by hand", desired: F.body("Deployment", "web", replicas: 2), recorded: F.body("Deployment", "web", replicas: 2),
            live: F.body("Deployment", "web", replicas: 5), action: .update, reason: "changed outside mcloud",
            drift: ["spec.replicas changed outside mcloud"]
        ),
        Case(
            name: "deleted by hand", desired: F.body("Deployment", "web", replicas: 2), recorded: F.body("Deployment", "web", replicas: 2),
            action: .create, reason: "deleted outside mcloud", drift: ["deleted outside mcloud"]
        ),
        Case(
            name: "immutable selector", desired: F.body("Deployment", "web", replicas: 2, selector: "web2"),
            recorded: F.body("Deployment", "web", replicas: 2), live: F.body("Deployment", "web", replicas: 2), action: .replace,
            reason: "spec.selector cannot change"
        ),
        Case(name: "removed from the manifests", recorded: F.body("Deployment", "web", replicas: 2), live: F.body("Deployment", "web", replicas: 2), action: .delete, reason: "no longer in the manifests"),
        Case(
            name: "removed and already gone", recorded: F.body("Deployment", "web", replicas: 2), action: .delete, reason: "already deleted outside mcloud",
            drift: ["deleted outside mcloud"]
        ),
        Case(name: "left by an interrupted apply", live: F.body("Deployment", "web", replicas: 2), action: .delete, reason: "interrupted apply"),
        Case(
            name: "created but not recorded", desired: F.body("Deployment", "web", replicas: 2), live: F.body("Deployment", "web", replicas: 2),
            action: .update, reason: "taking it over"
        ),
        Case(
            name: "without refresh the state stands for the cloud", desired: F.body("Deployment", "web", replicas: 2),
            recorded: F.body("Deployment", "web", replicas: 2), refreshed: false, action: .noOp, reason: "up to date"
        ),
        Case(name: "nothing anywhere", action: nil, reason: ""),
    ]

    @Test("each situation gives its action, reason and drift", arguments: cases)
    func situation(_ test: Case) {
        let desired = test.desired.map { [F.desired(Self.address, $0)] } ?? []
        let state = State(lineage: "0b7f3c1e-2d4a-4c5b-9e8f-1a2b3c4d5e6f", serial: 1, resources: test.recorded.map { [F.recorded(Self.address, $0)] } ?? [])
        let observed: [ResourceAddress: ObservedResource]? = test.refreshed
            ? Dictionary(uniqueKeysWithValues: test.live.map { [(Self.address, ObservedResource(address: Self.address, providerID: "uid", attributes: $0))] } ?? [])
            : nil
        let provider = MemoryProvider()
        let changes = ChangeSet.changes(desired: desired, state: state, observed: observed) { provider.replacementReasons(desired: $0, current: $1) }
        #expect(changes.first?.action == test.action)
        if let change = changes.first {
            #expect(change.reason.contains(test.reason), "\(change.reason)")
            #expect(change.drift == test.drift)
        }
    }

    @Test func serverAddedFieldsAreNotChanges() {
        let wanted = F.body("Deployment", "web", replicas: 2)
        let live: JSONValue = .object(wanted.objectPairs + [("status", .object([("readyReplicas", .int(2))]))])
        let changes = ChangeSet.changes(
            desired: [F.desired(Self.address, wanted)], state: State(lineage: "0b7f3c1e-2d4a-4c5b-9e8f-1a2b3c4d5e6f", serial: 1, resources: [F.recorded(Self.address, wanted)]),
            observed: [Self.address: ObservedResource(address: Self.address, providerID: "uid", attributes: live)]
        ) { _, _ in [] }
        #expect(changes.map(\.action) == [.noOp])
    }

    @Test func aFieldDroppedFromTheManifestsIsRemovedFromTheCloud() {
        let recorded = F.body("Deployment", "web", replicas: 2)
        let wanted: JSONValue = .object(recorded.objectPairs.filter { $0.0 != "spec" })
        let changes = ChangeSet.changes(
            desired: [F.desired(Self.address, wanted)], state: State(lineage: "0b7f3c1e-2d4a-4c5b-9e8f-1a2b3c4d5e6f", serial: 1, resources: [F.recorded(Self.address, recorded)]),
            observed: [Self.address: ObservedResource(address: Self.address, providerID: "uid", attributes: recorded)]
        ) { _, _ in [] }
        #expect(changes.map(\.action) == [.update])
        #expect(changes.first?.fieldChanges.map(\.path) == ["spec"])
    }

    @Test func manyAddressesComeBackSortedEachWithItsOwnChange() {
        // Enough addresses to be compared on every core: each keeps its own action, and the order stays sorted.
        let names = (0..<500).map { "web-\($0)" }.shuffled()
        let desired = names.map { F.desired(ResourceAddress("memory.lab.Deployment.\($0)"), F.body("Deployment", $0, replicas: 2)) }
        let recorded = names.enumerated().filter { $0.offset % 3 != 0 }.map { index, name in
            F.recorded(ResourceAddress("memory.lab.Deployment.\(name)"), F.body("Deployment", name, replicas: index % 3 == 1 ? 2 : 5))
        } + [F.recorded("memory.lab.Deployment.gone", F.body("Deployment", "gone", replicas: 1))]
        let state = State(lineage: "0b7f3c1e-2d4a-4c5b-9e8f-1a2b3c4d5e6f", serial: 1, resources: recorded)
        let changes = ChangeSet.changes(desired: desired, state: state, observed: nil) { _, _ in [] }
        #expect(changes.map(\.address) == (desired.map(\.address) + ["memory.lab.Deployment.gone"]).sorted())
        let expected = Dictionary(uniqueKeysWithValues: names.enumerated().map { index, name in
            (ResourceAddress("memory.lab.Deployment.\(name)"), [ResourceChange.Action.create, .noOp, .update][index % 3])
        })
        for change in changes {
            #expect(change.action == (expected[change.address] ?? .delete), "\(change.address)")
        }
    }
}

@Suite struct FieldDiffTests {
    @Test func keyOrderAndNumberFormDoNotMatter() {
        let a: JSONValue = .object([("a", .int(1)), ("b", .string("x"))])
        let b: JSONValue = .object([("b", .string("x")), ("a", .number(1.0))])
        #expect(FieldDiff.same(a, b))
        #expect(FieldDiff.changes(from: a, to: b).isEmpty)
    }

    @Test(arguments: [3, 40])
    func objectsOfAnySizeCompareEachKeysFirstPair(size: Int) {
        // Small objects are scanned, large ones go through a dictionary: both take a repeated key's first pair.
        let keys = (0..<size).map { "k\($0)" }
        let left: JSONValue = .object([("k0", .int(0)), ("k0", .int(0))] + keys.dropFirst(2).map { ($0, .string($0)) })
        let right: JSONValue = .object([("k0", .int(0)), ("k0", .int(99))] + keys.dropFirst(2).reversed().map { ($0, .string($0)) })
        #expect(FieldDiff.same(left, right))
        #expect(!FieldDiff.same(right, left))
        let missing: JSONValue = .object(keys.map { ($0, .string($0)) })
        #expect(!FieldDiff.same(missing, right))
    }

    @Test func changesNameTheDeepestField() {
        let before: JSONValue = .object([("spec", .object([("replicas", .int(3)), ("paused", .bool(false))]))])
        let after: JSONValue = .object([("spec", .object([("replicas", .int(2))]))])
        let changes = FieldDiff.changes(from: before, to: after)
        #expect(changes.map(\.path) == ["spec.replicas", "spec.paused"])
        #expect(changes.first?.before == .int(3) && changes.first?.after == .int(2))
    }

    @Test func projectionKeepsOnlyTheShapesFieldsInItsOrder() {
        let live: JSONValue = .object([("status", .object([])), ("spec", .object([("b", .int(2)), ("a", .int(1)), ("c", .int(3))]))])
        let shape: JSONValue = .object([("spec", .object([("a", .int(0)), ("b", .int(0))]))])
        #expect(FieldDiff.projected(live, onto: shape) == .object([("spec", .object([("a", .int(1)), ("b", .int(2))]))]))
    }
}
