import Foundation
import MCloudCore
import MCloudEngine
import MCloudKubernetes
import MCloudKubernetesProvider
import MCloudManifest
import MCloudPlanner
import MCloudProvider
import MCloudRender
import MCloudState
import MCloudViews

/// `mcloud plan --no-refresh` over a large state, phase by phase, through a real state backend: the state is
/// written once through the backend, then each run reads it back, renders the desired resources, diffs them, writes
/// the plan document as `plan --out` does and reads that back as `apply PLANFILE` does.
///
/// Each phase is a function of its own, so `valgrind --tool=callgrind --dump-before=...` can count its
/// instructions (docs/benchmarks.md, engine-plan): wall time means little on a shared machine.
enum EnginePlanBenchmark {
    struct Options {
        var resources = 10_000
        var backend = "file"
        var state: String?
        var runs = 3
    }

    /// Kubernetes providers that are never asked to connect: a plan without refresh needs none.
    struct OfflineCatalog: ProviderCatalog {
        func provider(named name: ProviderName, for cloud: Cloud) throws(ProviderError) -> any ResourceProvider {
            KubernetesResourceProvider(cloud: cloud.name) { () throws(ProviderError) -> KubernetesClient in
                throw ProviderError(.unavailable, "the benchmark plans without refresh")
            }
        }
    }

    /// What a plan is made of: the retail bank, rendered as many times as it takes to reach the resource count.
    struct Workload {
        let model: Model
        let placement: Placement
        let resources: Int
        let clouds: [String: Cloud]
    }

    static func run(_ arguments: [String]) async {
        let options: Options
        do {
            options = try parse(arguments)
        } catch {
            print("engine-plan: \(error.description)")
            exit(1)
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let set = ManifestLoader.load(paths: ["\(root)/Manifests/retail-bank"], providers: "\(root)/Providers")
        guard let model = set.model, case .success(let placement) = Planner.plan(model) else {
            print("engine-plan: the retail-bank example does not plan")
            exit(1)
        }
        let workload = Workload(
            model: model, placement: Placement(placement), resources: options.resources,
            clouds: Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        )
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-bench-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            let url = try options.state ?? stateURL(backend: options.backend, folder: folder)
            let backend = try StateURL(parsing: url).backend()
            let desired = desiredPhase(workload)
            let recorded = recordedState(desired)
            let (stateBytes, write) = try measure { () throws(StateError) in try writePhase(recorded, to: backend) }
            var table = Table(header: [
                "run", "backend", "resources", "state MiB", "read s", "read cpu s", "read MiB/s", "desired s", "diff s", "total s", "total cpu s",
                "plan JSON s", "plan read s", "result", "peak MiB",
            ])
            for run in 1...options.runs {
                let (stored, read) = try measure { () throws(StateError) in try readPhase(backend) }
                guard let state = stored else { throw BenchmarkFailure("the state the benchmark wrote is gone") }
                let (wanted, building) = measure { desiredPhase(workload) }
                let (plan, diff) = try await measureAsync { () async throws(EngineError) in try await diffPhase(wanted, state: state, workload: workload) }
                let (document, writing) = measure { documentPhase(plan) }
                let (changes, reading) = try measure { () throws(PlanDocument.Failure) in try planReadPhase(document) }
                guard changes == plan.changes.count else { throw BenchmarkFailure("the saved plan read back has \(changes) changes, not \(plan.changes.count)") }
                let total = read + building + diff
                let megabytes = Double(stateBytes) / 1_048_576
                table.rows.append([
                    String(run), options.backend, String(wanted.count), String(format: "%.1f", megabytes), format(read.wall), format(read.cpu),
                    String(format: "%.0f", megabytes / read.wall), format(building.wall), format(diff.wall), format(total.wall), format(total.cpu),
                    format(writing.wall), format(reading.wall), "\(plan.count(.update)) updates, \(document.count / 1024) KiB of JSON",
                    String(format: "%.0f", ResourceUsage.peakMiB()),
                ])
            }
            print(table.text)
            print("state written once through the backend in \(format(write.wall)) s (\(format(write.cpu)) CPU s); "
                + "total = read + desired + diff; cpu = user + system seconds of every thread")
        } catch {
            print("engine-plan: \(error)")
            exit(1)
        }
    }

    static func parse(_ arguments: [String]) throws(BenchmarkFailure) -> Options {
        var options = Options()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let value = index + 1 < arguments.count ? arguments[index + 1] : nil
            switch (argument, value) {
            case ("--backend", let name?) where name == "file" || name == "postgres": options.backend = name
            case ("--state", let url?): options.state = url
            case ("--runs", let text?) where Int(text).map({ $0 > 0 }) == true: options.runs = Int(text) ?? options.runs
            case (let text, _) where Int(text).map({ $0 > 0 }) == true:
                options.resources = Int(text) ?? options.resources
                index += 1
                continue
            default:
                throw BenchmarkFailure("usage: engine-plan [RESOURCES] [--backend file|postgres] [--state URL] [--runs N]")
            }
            index += 2
        }
        return options
    }

    /// A state file in a folder of its own, or the PostgreSQL test bed's database in a workspace of the benchmark's.
    static func stateURL(backend: String, folder: String) throws(BenchmarkFailure) -> String {
        guard backend == "postgres" else { return "file://\(folder)/state.json" }
        let environment = ProcessInfo.processInfo.environment
        let envFile = (environment["MCLOUD_POSTGRES_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/postgres") + "/env"
        let prefix = "MCLOUD_TEST_POSTGRES_URL="
        let fromFile = FileManager.default.contents(atPath: envFile).flatMap { data in
            String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        }
        guard let url = environment["MCLOUD_TEST_POSTGRES_URL"] ?? fromFile else {
            throw BenchmarkFailure("no PostgreSQL: run scripts/testbed/postgres.sh start, or pass --state postgres://...")
        }
        // One workspace for every run of the benchmark: the table keeps it and at most 10 replaced versions.
        return url + (url.contains("?") ? "&" : "?") + "workspace=mcloud-bench"
    }

    /// The desired resources: the retail bank's Kubernetes objects, rendered once per copy and renamed per copy.
    @inline(never)
    static func desiredPhase(_ workload: Workload) -> [DesiredResource] {
        var desired: [DesiredResource] = []
        var copy = 0
        while desired.count < workload.resources {
            let rendered = DesiredResources.from(Rendering(model: workload.model, placement: workload.placement)).filter { $0.provider == .kubernetes }
            guard !rendered.isEmpty else { break }
            for resource in rendered where desired.count < workload.resources {
                var renamed = resource
                renamed.address = "\(resource.address)-\(copy)"
                desired.append(renamed)
            }
            copy += 1
        }
        return desired
    }

    /// The state records every resource; one in a hundred has other replicas, so the plan has updates to show.
    static func recordedState(_ desired: [DesiredResource]) -> [ResourceState] {
        desired.enumerated().map { index, resource in
            var attributes = Dictionary(resource.body.objectPairs, uniquingKeysWith: { first, _ in first })
            if index % 100 == 0, resource.type == "Deployment", case .object(var spec)? = attributes["spec"] {
                spec = spec.map { $0.0 == "replicas" ? ("replicas", .int(99)) : $0 }
                attributes["spec"] = .object(spec)
            }
            return ResourceState(
                address: resource.address, provider: resource.provider, cloud: resource.cloud, providerID: "uid-\(index)",
                attributes: attributes, dependencies: resource.dependencies
            )
        }
    }

    /// Stores the state as `apply` would, under the lock and above the stored serial; returns its size in bytes.
    @inline(never)
    static func writePhase(_ resources: [ResourceState], to backend: any StateBackend) throws(StateError) -> Int {
        let lock = try backend.lock(operation: "bench")
        defer { try? backend.unlock(id: lock.id) }
        let stored = try backend.read()
        var state = State(lineage: stored?.lineage ?? State().lineage, serial: stored?.serial ?? 0, resources: resources).nextSerial()
        state.application = stored?.application
        try backend.write(state)
        return state.serializedBytes().count
    }

    @inline(never)
    static func readPhase(_ backend: any StateBackend) throws(StateError) -> State? {
        try backend.read()
    }

    @inline(never)
    static func diffPhase(_ desired: [DesiredResource], state: State, workload: Workload) async throws(EngineError) -> DeploymentPlan {
        let request = PlanMaker.Request(
            operation: .apply, application: workload.model.application.name, desired: desired, state: state, refresh: false, inputDigest: "sha256:bench"
        )
        return try await PlanMaker.plan(request, clouds: workload.clouds, catalog: OfflineCatalog())
    }

    /// The saved plan's bytes, as `plan --out` writes them.
    @inline(never)
    static func documentPhase(_ plan: DeploymentPlan) -> [UInt8] {
        PlanDocument(deployment: plan, placement: nil).json.serializedBytes()
    }

    /// Reads a saved plan back, as `apply PLANFILE` and `show` do; returns its number of changes.
    @inline(never)
    static func planReadPhase(_ bytes: [UInt8]) throws(PlanDocument.Failure) -> Int {
        try PlanDocument.parse(bytes, file: "bench.plan").deployment?.changes.count ?? 0
    }

    struct Elapsed {
        var wall: Double
        var cpu: Double

        static func + (left: Elapsed, right: Elapsed) -> Elapsed { Elapsed(wall: left.wall + right.wall, cpu: left.cpu + right.cpu) }
    }

    static func measure<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> (Result, Elapsed) {
        let start = (wall: DispatchTime.now().uptimeNanoseconds, cpu: ResourceUsage.cpuSeconds())
        let result = try body()
        return (result, Elapsed(wall: Double(DispatchTime.now().uptimeNanoseconds - start.wall) / 1e9, cpu: ResourceUsage.cpuSeconds() - start.cpu))
    }

    static func measureAsync<Result, Failure: Error>(_ body: () async throws(Failure) -> Result) async throws(Failure) -> (Result, Elapsed) {
        let start = (wall: DispatchTime.now().uptimeNanoseconds, cpu: ResourceUsage.cpuSeconds())
        let result = try await body()
        return (result, Elapsed(wall: Double(DispatchTime.now().uptimeNanoseconds - start.wall) / 1e9, cpu: ResourceUsage.cpuSeconds() - start.cpu))
    }

    static func format(_ seconds: Double) -> String { String(format: "%.3f", seconds) }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
