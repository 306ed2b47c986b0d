import Foundation
import MCloudCore
@testable import MCloudEngine
import MCloudProvider
import MCloudState
import Synchronization
import Testing

@Suite struct ApplierTests {
    typealias F = EngineFixtures

    /// A namespace, three objects in it, and a plan that creates them all.
    static func plan(
        _ provider: MemoryProvider, state: State? = nil, extra: [DesiredResource] = []
    ) async throws -> DeploymentPlan {
        let namespace: ResourceAddress = "memory.lab.Namespace.shop"
        let desired = [F.desired(namespace, F.body("Namespace", "shop", namespace: nil), type: "Namespace")]
            + ["a", "b", "c"].map { F.desired("memory.lab.Deployment.shop.\($0)", F.body("Deployment", $0, replicas: 1), dependencies: [namespace]) }
            + extra
        let request = PlanMaker.Request(
            operation: .apply, application: "shop", desired: desired, state: state, refresh: true, inputDigest: "sha256:0"
        )
        return try await PlanMaker.plan(request, clouds: ["lab": F.lab], catalog: provider)
    }

    static func run(_ plan: DeploymentPlan, _ provider: MemoryProvider, backend: FileStateBackend, parallelism: Int = 10, stop: StopSignal = StopSignal()) async throws -> Applier.Outcome {
        let providers = try ProviderSet(needs: plan.changes.map { ($0.address, $0.provider, $0.cloud) }, clouds: ["lab": F.lab], catalog: provider)
        let applier = Applier(parallelism: parallelism, tick: 60, stopSignal: stop) { _ in }
        return try await applier.apply(plan, providers: providers, recorder: StateRecorder(state: try backend.read() ?? State(), backend: backend))
    }

    static func lockedBackend() throws -> FileStateBackend {
        let backend = FileStateBackend(path: F.temporaryDirectory() + "/state.json")
        _ = try backend.lock(operation: "apply")
        return backend
    }

    /// What a provider knows it cannot deliver fails the plan, every such resource named, before anything is read.
    @Test func aPlanWithWhatCannotBeDeliveredFailsBeforeAnyRefresh() async throws {
        let provider = MemoryProvider(undeliverable: ["memory.lab.Deployment.shop.b": "no room for b", "memory.lab.Deployment.shop.c": "no room for c"])
        await #expect {
            try await Self.plan(provider)
        } throws: { error in
            (error as? EngineError)?.message == "cannot be delivered, so nothing was planned:\n  memory.lab.Deployment.shop.b: no room for b\n  memory.lab.Deployment.shop.c: no room for c"
        }
        #expect(provider.events.isEmpty)
    }

    @Test func dependenciesAreCreatedFirstAndDeletedLast() async throws {
        let provider = MemoryProvider()
        let backend = try Self.lockedBackend()
        let outcome = try await Self.run(try await Self.plan(provider), provider, backend: backend)
        #expect(outcome.succeeded)
        let events = provider.events
        let namespaceDone = try #require(events.firstIndex(of: "end create memory.lab.Namespace.shop"))
        for name in ["a", "b", "c"] {
            #expect(try #require(events.firstIndex(of: "start create memory.lab.Deployment.shop.\(name)")) > namespaceDone)
        }
        // Destroy: an empty desired set deletes everything, the namespace after what is in it.
        let state = try #require(try backend.read())
        let destroy = try await PlanMaker.plan(
            .init(operation: .destroy, application: "shop", desired: [], state: state, refresh: true, inputDigest: "sha256:0"),
            clouds: ["lab": F.lab], catalog: provider
        )
        let gone = try await Self.run(destroy, provider, backend: backend)
        #expect(gone.succeeded && gone.state.resources.isEmpty)
        let after = provider.events
        let namespaceDeleted = try #require(after.firstIndex(of: "start delete memory.lab.Namespace.shop"))
        for name in ["a", "b", "c"] {
            #expect(try #require(after.firstIndex(of: "end delete memory.lab.Deployment.shop.\(name)")) < namespaceDeleted)
        }
    }

    @Test(arguments: [1, 2, 3])
    func neverMoreThanParallelismChangesAtOnce(_ parallelism: Int) async throws {
        let provider = MemoryProvider(delay: .milliseconds(60))
        let extra = (0..<12).map { F.desired("memory.lab.Deployment.other.d\($0)", F.body("Deployment", "d\($0)", replicas: 1, namespace: "other")) }
        let outcome = try await Self.run(try await Self.plan(provider, extra: extra), provider, backend: try Self.lockedBackend(), parallelism: parallelism)
        #expect(outcome.succeeded)
        #expect(provider.maxRunning == parallelism)
    }

    /// Found by the chaos harness: a server-side apply answer without metadata.uid made the state write refuse
    /// itself ("this is an mcloud bug"). Now the change fails naming why, and the next apply records it.
    @Test func aCreateWhoseAnswerCarriesNoIDFailsClearlyAndTheNextApplyTakesItOver() async throws {
        let namespace: ResourceAddress = "memory.lab.Namespace.shop"
        let provider = MemoryProvider(withoutID: [namespace])
        let backend = try Self.lockedBackend()
        let outcome = try await Self.run(try await Self.plan(provider), provider, backend: backend)
        #expect(outcome.failures.map(\.address) == [namespace])
        #expect(outcome.failures.first?.message.contains("create in lab: the cloud's answer carries no ID") == true, "\(outcome.failures)")
        #expect(try backend.read() == nil, "nothing else started, nothing was recorded")

        let healed = MemoryProvider()
        healed.objects.withLock { $0 = provider.objects.withLock { $0 } }
        let again = try await Self.run(try await Self.plan(healed, state: try backend.read()), healed, backend: backend)
        #expect(again.succeeded && again.state.resources.count == 4)
        #expect(again.state[namespace]?.providerID == "id-\(namespace)")
    }

    @Test func aFailureStartsNothingNewAndTheStateKeepsWhatCompleted() async throws {
        let provider = MemoryProvider(failing: ["memory.lab.Namespace.shop": "quota exceeded for namespaces"])
        let backend = try Self.lockedBackend()
        let outcome = try await Self.run(try await Self.plan(provider), provider, backend: backend)
        #expect(!outcome.succeeded)
        #expect(outcome.failures.map(\.message) == ["quota exceeded for namespaces"])
        #expect(outcome.notStarted == 3)
        #expect(!provider.events.contains { $0.hasPrefix("start create memory.lab.Deployment") })
        #expect(try backend.read() == nil)
    }

    /// A failure stops its cloud and what depends on it; another cloud's independent changes still finish (a cloud
    /// cut off by the network then costs one time limit, not the whole apply).
    @Test func aFailureStopsItsCloudAndItsDependentsWhileOtherCloudsGoOn() async throws {
        let namespace: ResourceAddress = "memory.lab.Namespace.shop"
        let desired = [
            F.desired(namespace, F.body("Namespace", "shop", namespace: nil), type: "Namespace"),
            F.desired("memory.lab.Service.shop.z", F.body("Service", "z"), type: "Service"),
            F.desired("memory.next.Deployment.shop.x", F.body("Deployment", "x", replicas: 1), cloud: "next"),
            F.desired("memory.next.Deployment.shop.y", F.body("Deployment", "y", replicas: 1), dependencies: [namespace], cloud: "next"),
        ]
        let provider = MemoryProvider(failing: [namespace: "connection refused"])
        let clouds = ["lab": F.lab, "next": F.cloud("next")]
        let plan = try await PlanMaker.plan(
            .init(operation: .apply, application: "shop", desired: desired, state: nil, refresh: true, inputDigest: "sha256:0"), clouds: clouds, catalog: provider
        )
        let providers = try ProviderSet(needs: plan.changes.map { ($0.address, $0.provider, $0.cloud) }, clouds: clouds, catalog: provider)
        let events = Mutex<[ApplyEvent]>([])
        let applier = Applier(parallelism: 1, tick: 60) { event in events.withLock { $0.append(event) } }
        let backend = try Self.lockedBackend()
        let outcome = try await applier.apply(plan, providers: providers, recorder: StateRecorder(state: State(), backend: backend))
        #expect(outcome.failures.map(\.address) == [namespace])
        #expect(try backend.read()?.resources.map(\.address) == ["memory.next.Deployment.shop.x"])
        #expect(outcome.notStarted == 2, "the other change in lab and the one that needs the namespace")
        #expect(!provider.events.contains { $0.contains("Service.shop.z") || $0.contains("shop.y") })
        #expect(outcome.stopReason == nil)
        #expect(events.withLock { $0 }.contains(.stopping(reason: "\(namespace) failed; starting no other memory change in lab and nothing that depends on it (changes elsewhere go on)")))
    }

    @Test func everyCompletedChangeIsWrittenToTheStateAtOnce() async throws {
        let provider = MemoryProvider(failing: ["memory.lab.Deployment.shop.c": "image pull secret missing"])
        let backend = try Self.lockedBackend()
        let outcome = try await Self.run(try await Self.plan(provider), provider, backend: backend, parallelism: 1)
        let state = try #require(try backend.read())
        #expect(state.resources.map(\.address) == ["memory.lab.Deployment.shop.a", "memory.lab.Deployment.shop.b", "memory.lab.Namespace.shop"])
        #expect(state.serial == 3)
        #expect(outcome.completed[.create] == 3)
        // The next apply continues from there: only the failed one is left.
        let retry = MemoryProvider()
        for resource in state.resources { retry.objects.withLock { $0[resource.address] = resource.attributes } }
        let next = try await Self.plan(retry, state: state)
        #expect(next.changes.filter { $0.action != .noOp }.map(\.address) == ["memory.lab.Deployment.shop.c"])
    }

    @Test func aSlowChangeReportsThatItIsStillRunningUntilItFinishes() async throws {
        let provider = MemoryProvider(delay: .seconds(1))
        let events = Mutex<[ApplyEvent]>([])
        let plan = try await Self.plan(provider)
        let providers = try ProviderSet(needs: plan.changes.map { ($0.address, $0.provider, $0.cloud) }, clouds: ["lab": F.lab], catalog: provider)
        let applier = Applier(parallelism: 4, tick: 0.05) { event in events.withLock { $0.append(event) } }
        let outcome = try await applier.apply(plan, providers: providers, recorder: StateRecorder(state: State(), backend: try Self.lockedBackend()))
        #expect(outcome.succeeded)
        let seen = events.withLock { $0 }
        #expect(seen.first == .started(address: "memory.lab.Namespace.shop", action: .create))
        var finished = Set<ResourceAddress>()
        var ticks = 0
        for event in seen {
            switch event {
            case .finished(let address, _, _, _): finished.insert(address)
            case .stillRunning(let address, _, _):
                ticks += 1
                #expect(!finished.contains(address), "\(address) was still running after it finished")
            default: break
            }
        }
        #expect(finished.count == 4)
        #expect(ticks > 0)
    }

    @Test func aStopBeforeTheStartChangesNothing() async throws {
        let provider = MemoryProvider()
        let stop = StopSignal()
        stop.stop("interrupted")
        let outcome = try await Self.run(try await Self.plan(provider), provider, backend: try Self.lockedBackend(), stop: stop)
        #expect(outcome.notStarted == 4 && outcome.stopReason == "interrupted")
        #expect(provider.events.isEmpty)
    }

    @Test func aResourceNoProviderHandlesFailsThePlanNamingIt() async throws {
        let request = PlanMaker.Request(
            operation: .apply, application: "shop",
            desired: [DesiredResource(address: "openstack.lab.DatabaseServer.shop.db.0", provider: "openstack", cloud: "lab", type: "DatabaseServer", body: .object([]), dependencies: [])],
            state: nil, refresh: true, inputDigest: "sha256:0"
        )
        await #expect {
            _ = try await PlanMaker.plan(request, clouds: ["lab": F.lab], catalog: MemoryProvider())
        } throws: { error in
            "\(error)".contains("openstack.lab.DatabaseServer.shop.db.0") && "\(error)".contains("not built into")
        }
    }

    @Test func aTargetLimitsThePlanToItAndWhatItNeeds() async throws {
        let provider = MemoryProvider()
        let full = try await Self.plan(provider)
        let request = PlanMaker.Request(
            operation: .apply, application: "shop", desired: full.changes.compactMap(\.after), state: nil, refresh: true,
            inputDigest: "sha256:0", targets: TargetSelection(["memory.lab.Deployment.shop.a"])
        )
        let targeted = try await PlanMaker.plan(request, clouds: ["lab": F.lab], catalog: provider)
        #expect(targeted.changes.map(\.address) == ["memory.lab.Deployment.shop.a", "memory.lab.Namespace.shop"])
        let state = State(lineage: "0b7f3c1e-2d4a-4c5b-9e8f-1a2b3c4d5e6f", serial: 2, resources: [F.recorded("memory.lab.Deployment.old.x", F.body("Deployment", "x", replicas: 1))])
        let untouched = try await PlanMaker.plan(
            .init(operation: .destroy, application: "shop", desired: [], state: state, refresh: false, inputDigest: "sha256:0",
                  targets: TargetSelection(["memory.lab.Deployment.shop."])),
            clouds: ["lab": F.lab], catalog: provider
        )
        #expect(untouched.changes.isEmpty)
    }

    /// The refresh finds every resource of the application by its labels; a targeted plan after a full apply must not
    /// take those outside its targets for an interrupted apply's leftovers and delete them (found by the switchover,
    /// whose rewiring is targeted).
    @Test func aTargetedPlanAfterAnApplyLeavesTheResourcesOutsideItsTargetsAlone() async throws {
        let provider = MemoryProvider()
        let backend = try Self.lockedBackend()
        let full = try await Self.plan(provider)
        #expect(try await Self.run(full, provider, backend: backend).succeeded)
        let request = PlanMaker.Request(
            operation: .apply, application: "shop", desired: full.changes.compactMap(\.after), state: try backend.read(), refresh: true,
            inputDigest: "sha256:0", targets: TargetSelection(["memory.lab.Deployment.shop.a"])
        )
        let targeted = try await PlanMaker.plan(request, clouds: ["lab": F.lab], catalog: provider)
        #expect(targeted.changes.allSatisfy { $0.action == .noOp }, "\(targeted.changes.map { "\($0.action) \($0.address)" })")
        #expect(targeted.changes.map(\.address) == ["memory.lab.Deployment.shop.a", "memory.lab.Namespace.shop"])
    }
}
