public import MCloudProvider
import Synchronization
import MCloudCore

/// Carries out a plan: walks the dependency graph with up to `parallelism` changes at once and writes the state after
/// every completed change. A failure stops its cloud: none of that provider's other changes in that cloud starts
/// (it may be unreachable, and each would wait out its time limits), nor anything that depends on the failed change,
/// while the other clouds' independent changes go on, as Terraform goes on with what does not depend on an error.
/// A stop (an interrupt, a state that cannot be written) starts nothing new anywhere; what runs finishes.
public struct Applier: Sendable {
    public struct Outcome: Sendable {
        public var completed: [ResourceChange.Action: Int]
        public var failures: [(address: ResourceAddress, message: String)]
        /// Changes never started, because of a failure in their cloud or one they depend on, or a stop.
        public var notStarted: Int
        public var stopReason: String?
        public var state: State

        public var succeeded: Bool { failures.isEmpty && notStarted == 0 }
    }

    public var parallelism: Int
    /// Seconds between "still running" events.
    public var tick: Double
    public var stopSignal: StopSignal
    public var report: @Sendable (ApplyEvent) -> Void

    public init(parallelism: Int = 10, tick: Double = 10, stopSignal: StopSignal = StopSignal(), report: @escaping @Sendable (ApplyEvent) -> Void) {
        self.parallelism = max(1, parallelism)
        self.tick = tick
        self.stopSignal = stopSignal
        self.report = report
    }

    private enum Result: Sendable {
        case done(Int)
        case failed(Int, String)
    }

    public func apply(_ plan: DeploymentPlan, providers: ProviderSet, recorder: StateRecorder) async throws(EngineError) -> Outcome {
        let graph = try ApplyGraph(plan.changes)
        var waits = graph.waitCounts
        var ready = waits.indices.filter { waits[$0] == 0 }.reversed().map { $0 }
        var completed: [ResourceChange.Action: Int] = [:]
        var failures: [(address: ResourceAddress, message: String)] = []
        var started = 0
        /// The clouds (per provider) where a change failed: none of their other changes starts.
        var halted = Set<String>()
        func cloudKey(_ change: ResourceChange) -> String { "\(change.provider) \(change.cloud)" }
        let stopSignal = stopSignal
        let reported = ReportedAddresses()
        await withTaskGroup(of: Result.self) { group in
            var running = 0
            func startReady() {
                while running < parallelism, stopSignal.stopReason == nil, let next = ready.popLast() {
                    let change = graph.changes[next]
                    // What depends on a failed change never becomes ready; what shares its cloud is left here.
                    guard !halted.contains(cloudKey(change)) else { continue }
                    running += 1
                    started += 1
                    group.addTask { await run(change, index: next, providers: providers, recorder: recorder, reported: reported) }
                }
            }
            startReady()
            while let result = await group.next() {
                running -= 1
                switch result {
                case .done(let index):
                    completed[graph.changes[index].action, default: 0] += 1
                    for dependent in graph.dependents[index] {
                        waits[dependent] -= 1
                        if waits[dependent] == 0 { ready.insert(dependent, at: 0) }
                    }
                case .failed(let index, let message):
                    let change = graph.changes[index]
                    failures.append((address: change.address, message: message))
                    if halted.insert(cloudKey(change)).inserted {
                        report(.stopping(reason: "\(change.address) failed; starting no other \(change.provider) change in \(change.cloud) and nothing that depends on it (changes elsewhere go on)"))
                    }
                }
                startReady()
            }
        }
        return Outcome(
            completed: completed, failures: failures, notStarted: graph.changes.count - started, stopReason: stopSignal.stopReason,
            state: await recorder.state
        )
    }

    private func run(_ change: ResourceChange, index: Int, providers: ProviderSet, recorder: StateRecorder, reported: ReportedAddresses) async -> Result {
        let clock = ContinuousClock()
        let start = clock.now
        report(.started(address: change.address, action: change.action))
        let tick = tick
        let report = report
        let gate = TickGate()
        let ticker = Task {
            while true {
                do { try await Task.sleep(for: .milliseconds(Int(tick * 1000))) } catch { return }
                let seconds = Int((clock.now - start).components.seconds)
                gate.unlessClosed { report(.stillRunning(address: change.address, action: change.action, seconds: seconds)) }
            }
        }
        defer { ticker.cancel() }
        func stopTicking() { gate.close() }
        guard let provider = providers.provider(change.provider, cloud: change.cloud) else {
            stopTicking()
            return fail(change, index, "no \(change.provider) provider for \(change.cloud)")
        }
        do {
            let providerID = try await perform(change, provider: provider, recorder: recorder, reported: reported)
            stopTicking()
            let elapsed = clock.now - start
            report(.finished(address: change.address, action: change.action, seconds: Int(elapsed.components.seconds), providerID: providerID))
            return .done(index)
        } catch let error as ProviderError {
            stopTicking()
            return fail(change, index, error.message)
        } catch let error as StateError {
            stopTicking()
            // The cloud changed but the state could not say so: nothing more may start.
            stopSignal.stop("the state could not be written")
            return fail(change, index, "the state could not be written: \(error)")
        } catch {
            stopTicking()
            return fail(change, index, "\(error)")
        }
    }

    private func fail(_ change: ResourceChange, _ index: Int, _ message: String) -> Result {
        report(.failed(address: change.address, action: change.action, message: message))
        return .failed(index, message)
    }

    /// Does one change and records it; returns the provider's ID of what now exists. An EndpointSlice is refilled
    /// with the addresses this apply's earlier changes reported for what it names (they come first in the graph), and
    /// updated even when planned as unchanged if those moved (a replaced server got another address).
    private func perform(_ change: ResourceChange, provider: any ResourceProvider, recorder: StateRecorder, reported: ReportedAddresses) async throws -> String? {
        let recorded = await recorder.state[change.address] ?? change.recorded
        let primaries = await recorder.state.primaries
        let refilled = change.after.map { EndpointSliceFill.refilled($0, reported: reported.all, primaries: primaries) }
        var action = change.action
        if action == .noOp, let refilled, let planned = change.after, !FieldDiff.same(refilled.body, planned.body) { action = .update }
        switch action {
        case .noOp:
            return recorded?.providerID
        case .delete:
            if let recorded { try await provider.delete(recorded) }
            try await recorder.forget(change.address)
            return nil
        case .create, .update, .replace:
            guard let desired = refilled else { return nil }
            let observed: ObservedResource
            if action == .replace, let recorded {
                try await provider.delete(recorded)
                try await recorder.forget(change.address)
                observed = try await provider.create(desired)
            } else if action == .update, let recorded {
                observed = try await provider.update(desired, recorded: recorded)
            } else {
                observed = try await provider.create(desired)
            }
            // The state names every resource by its cloud ID; without one it could not be read back. The resource
            // may exist: the next refresh finds it by mcloud's labels and takes it over.
            guard !observed.providerID.isEmpty else {
                throw ProviderError(.failed, "\(change.action.rawValue) in \(change.cloud): the cloud's answer carries no ID for it, so it is not recorded; the next apply finds it and takes it over")
            }
            if let addresses = EndpointSliceFill.reportedAddresses(observed.attributes) { reported.record(addresses, for: desired.address) }
            // A recovery point is consumed when its server is made: the state records the server without it.
            let body = RecoveryPoints.consumed(desired.body)
            try await recorder.record(ResourceState(
                address: desired.address, provider: desired.provider, cloud: desired.cloud, providerID: observed.providerID,
                attributes: Dictionary(body.objectPairs, uniquingKeysWith: { first, _ in first }), dependencies: desired.dependencies
            ))
            return observed.providerID
        }
    }
}

/// The addresses providers reported for what this apply made or changed, by address, for the EndpointSlices that
/// name them.
private final class ReportedAddresses: Sendable {
    private let addresses = Mutex<[ResourceAddress: [String]]>([:])

    var all: [ResourceAddress: [String]] { addresses.withLock { $0 } }

    func record(_ reported: [String], for address: ResourceAddress) {
        addresses.withLock { $0[address] = reported }
    }
}

/// Closed, under its lock, before a change's outcome is reported, so no "still running" line follows it.
private final class TickGate: Sendable {
    private let closed = Mutex(false)

    func unlessClosed(_ body: () -> Void) {
        closed.withLock { if !$0 { body() } }
    }

    func close() {
        closed.withLock { $0 = true }
    }
}
