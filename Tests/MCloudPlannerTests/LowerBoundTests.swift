import Foundation
import MCloudCore
import MCloudManifest
import MCloudPlanner
import Testing

/// The plan's lower bound must be a true one (never above the optimum) and of LP quality.
@Suite struct LowerBoundTests {
    static let root = String(#filePath.split(separator: "/Tests/")[0])

    struct Reference: Decodable {
        var kind: String
        var cost: Double
    }

    /// The LP relaxation of planner.md's problem on three small bench instances (copied with their references into
    /// Fixtures/bench, so the tests need only the repository), solved once with HiGHS (co-location
    /// linearized as w <= x and w <= min(maxPerCloud, R) y): the bound must come within 0.1% of it, and stays below
    /// it where the combinations of primaries are too many to bound one by one (20 clouds).
    static let relaxations: [(instance: String, lp: Double, aboveLP: Bool)] = [
        ("c8_s20_d5_k1", 5368.6237, true), ("c8_s20_d5_k2", 3567.2463, true), ("c20_s100_d20_k2", 26444.6094, false),
    ]

    @Test(arguments: relaxations.indices)
    func theBoundIsBelowTheReferenceAndAtMostATenthOfAPercentBelowTheLP(_ index: Int) throws {
        let (instance, lp, aboveLP) = Self.relaxations[index]
        let directory = "\(Self.root)/Tests/MCloudPlannerTests/Fixtures/bench/\(instance)"
        let model = try #require(ManifestLoader.load(paths: [directory + "/Manifests"], providers: directory + "/Providers").model)
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/reference.json")))
        guard case .success(let plan) = Planner.plan(model, options: Planner.Options(explanations: .none)) else {
            Issue.record("\(instance) has no placement")
            return
        }
        // An optimal reference is the optimum and a best-known one is above it: the bound is below both, and below the LP.
        #expect(plan.cost.lowerBound <= reference.cost * (1 + 1e-9), "\(instance): bound \(plan.cost.lowerBound) above the \(reference.kind) cost \(reference.cost)")
        #expect(aboveLP || plan.cost.lowerBound <= lp * (1 + 1e-7), "\(instance): bound \(plan.cost.lowerBound) above the LP relaxation \(lp)")
        #expect(plan.cost.lowerBound >= lp * 0.999, "\(instance): bound \(plan.cost.lowerBound) more than 0.1% below the LP relaxation \(lp)")
        #expect(plan.cost.monthly >= reference.cost * (1 - 1e-9) || reference.kind != "optimal")
    }

    /// On the 8-cloud instances the LP relaxation leaves 0.6% and 1.0% to the optimum; every combination of
    /// primaries bounded on its own proves the plan within 1% (0.07% and 0.13% when written).
    @Test(arguments: ["c8_s20_d5_k1", "c8_s20_d5_k2"])
    func everyCombinationOfPrimariesBoundedOnItsOwnProvesTheSmallestInstancesWithinOnePercent(_ instance: String) throws {
        let directory = "\(Self.root)/Tests/MCloudPlannerTests/Fixtures/bench/\(instance)"
        let model = try #require(ManifestLoader.load(paths: [directory + "/Manifests"], providers: directory + "/Providers").model)
        guard case .success(let plan) = Planner.plan(model, options: Planner.Options(explanations: .none)) else {
            Issue.record("\(instance) has no placement")
            return
        }
        let gap = (plan.cost.monthly - plan.cost.lowerBound) / plan.cost.monthly
        #expect(gap <= 0.01, "\(instance): cost \(plan.cost.monthly), bound \(plan.cost.lowerBound), gap \(gap)")
    }

    /// Tiny random instances (three clouds, two services, one or two databases, tight capacity, egress on every
    /// edge) whose optimum is found by trying every placement.
    @Test(arguments: 1...48)
    func theBoundIsNeverAboveTheOptimumFoundByEnumeration(_ seed: Int) throws {
        _ = try TinyInstance(seed: UInt64(seed)).planAgainstOptimum(seed: seed)
    }
}

/// A small instance drawn from a seed, with its own brute-force optimum per planner.md's cost (one audience, no
/// residency, no latency limits, no DR legs: the parts the bound relaxes are capacity and co-location), and with
/// `locality` a `maxLatencyMs` on every edge, which the bound relaxes too.
struct TinyInstance {
    struct Cloud {
        var vcpu: Int
        var memory: Int
        var vcpuHour: Double
        var memoryHour: Double
        var egress: Double
    }

    struct Service {
        var replicas: Int
        var cpu: Int
        var memory: Int
        var database: Int
        var traffic: Double
    }

    struct Database {
        var vcpu: Int
        var memory: Int
        var storage: Int
    }

    var clouds: [Cloud] = []
    var services: [Service] = []
    var databases: [Database] = []
    var minClouds: Int
    var maxShare: Double
    /// With `locality`: round-trip times between the clouds and every edge's `maxLatencyMs`.
    var latency: [[Double]] = []
    var limit: Double?
    static let storagePrice = 0.1

    init(seed: UInt64, locality: Bool = false) {
        var random = SplitMix64(seed: seed)
        var databases: [Database] = []
        for _ in 0..<Self.pick([1, 2], &random) {
            databases.append(Database(vcpu: Self.pick([2, 4], &random), memory: Self.pick([4, 8], &random), storage: Self.pick([50, 100], &random)))
        }
        for _ in 0..<3 {
            clouds.append(Cloud(
                vcpu: Self.pick([6, 8, 10], &random), memory: Self.pick([16, 24, 32], &random), vcpuHour: Self.pick([0.01, 0.02, 0.03, 0.05], &random),
                memoryHour: Self.pick([0.001, 0.003, 0.005], &random), egress: Self.pick([0.01, 0.05, 0.1, 0.2], &random)
            ))
        }
        for _ in 0..<2 {
            services.append(Service(
                replicas: Self.pick([2, 3, 4], &random), cpu: Self.pick([1, 2], &random), memory: Self.pick([1, 2, 4], &random),
                database: Self.pick(Array(databases.indices), &random), traffic: Self.pick([100, 500, 2000], &random)
            ))
        }
        self.databases = databases
        let spread = Self.pick([1, 2, 3], &random)
        minClouds = spread == 1 ? 1 : 2
        maxShare = spread == 2 ? 0.67 : 1.0
        // Drawn after everything else, so the instances without it stay as they were.
        guard locality else { return }
        latency = Array(repeating: Array(repeating: 0, count: clouds.count), count: clouds.count)
        for a in clouds.indices {
            for b in clouds.indices where a < b {
                latency[a][b] = Self.pick([2, 15, 40], &random)
                latency[b][a] = latency[a][b]
            }
        }
        limit = Self.pick([10, 20], &random)
    }

    static func pick<T>(_ items: [T], _ random: inout SplitMix64) -> T { items[Int(random.next() % UInt64(items.count))] }

    var documents: [String] {
        let application = """
            apiVersion: mcloud/v1
            kind: Application
            metadata: { name: tiny }
            spec:
              currency: USD
              audiences:
                - { name: ru, jurisdiction: RU, latencyMs: 50 }
              unrestrictedData: [catalog]
              availability: { minClouds: \(minClouds), maxShare: \(maxShare) }
            """
        let clouds = self.clouds.enumerated().map { index, cloud in
            """
            apiVersion: mcloud/v1
            kind: Cloud
            metadata: { name: cloud-\(index) }
            spec:
              vendor: vendor-\(index)
              api: openstack
              jurisdiction: [RU]
              region: region-\(index)
              offers: { kubernetes: true, vm: true, objectStorage: true }
              capacity: { vcpu: \(cloud.vcpu), memoryGiB: \(cloud.memory), storageGiB: 1000 }
              pricing: { currency: USD, vcpuHour: \(cloud.vcpuHour), memoryGiBHour: \(cloud.memoryHour), storageGiBMonth: \(Self.storagePrice), objectStorageGiBMonth: 0.02, egressGiB: \(cloud.egress) }
              latencyMs: { ru: 10 }\(latency.isEmpty ? "" : "\n  cloudLatencyMs: { " + self.clouds.indices.filter { $0 != index }.map { "cloud-\($0): \(latency[index][$0])" }.joined(separator: ", ") + " }")
            """
        }
        let databases = self.databases.enumerated().map { index, database in
            """
            apiVersion: mcloud/v1
            kind: Database
            metadata: { name: db-\(index) }
            spec:
              engine: postgresql
              version: "15"
              size: { vcpu: \(database.vcpu), memoryGiB: \(database.memory), storageGiB: \(database.storage) }
              data: [catalog]
              backup: { schedule: "0 3 * * *", retentionDays: 7 }
            """
        }
        let services = self.services.enumerated().map { index, service in
            """
            apiVersion: mcloud/v1
            kind: Service
            metadata: { name: svc-\(index) }
            spec:
              image: registry.example/svc-\(index):1
              replicas: \(service.replicas)
              resources: { cpu: "\(service.cpu)", memory: \(service.memory)Gi }
              data: [catalog]
              dependsOn: [{ name: db-\(service.database), trafficGiBMonth: \(service.traffic)\(limit.map { ", maxLatencyMs: \($0)" } ?? "") }]
            """
        }
        return [application] + clouds + databases + services
    }

    /// The instance planned against its optimum: a plan is never below it nor more than 1% above, its bound never
    /// above it, and the planner fails only where enumeration finds no placement. The plan, when there is one.
    func planAgainstOptimum(seed: Int) throws -> PlacementPlan? {
        let set = ManifestLoader.load([ManifestLoader.Source(file: "tiny.yaml", bytes: Array(documents.joined(separator: "\n---\n").utf8))])
        let model = try #require(set.model, "\(set.diagnostics)")
        let optimum = optimum()
        switch Planner.plan(model, options: Planner.Options(explanations: .none)) {
        case .success(let plan):
            let best = try #require(optimum, "seed \(seed): the planner placed an instance enumeration finds infeasible")
            let slack = 1e-7 * max(1, best)
            #expect(plan.cost.lowerBound <= best + slack, "seed \(seed): bound \(plan.cost.lowerBound) above the optimum \(best)")
            #expect(plan.cost.monthly >= best - slack, "seed \(seed): cost \(plan.cost.monthly) below the optimum \(best)")
            #expect(plan.cost.monthly <= best * 1.01 + slack, "seed \(seed): cost \(plan.cost.monthly) more than 1% above the optimum \(best)")
            return plan
        case .failure(let failure):
            #expect(optimum == nil, "seed \(seed): \(failure.cells.map(\.summary)), but enumeration finds a placement at \(optimum ?? 0)")
            return nil
        }
    }

    /// Every way to put `replicas` replicas into the clouds with spread met.
    func allocations(_ service: Service) -> [[Int]] {
        let limit = Int((maxShare * Double(service.replicas)).rounded(.down))
        var result: [[Int]] = []
        func extend(_ prefix: [Int], _ left: Int) {
            if prefix.count == clouds.count {
                if left == 0, prefix.filter({ $0 > 0 }).count >= minClouds { result.append(prefix) }
                return
            }
            for count in 0...min(left, limit) { extend(prefix + [count], left - count) }
        }
        extend([], service.replicas)
        return result
    }

    /// The cheapest cost over every placement that fits, or nil when none does.
    func optimum() -> Double? {
        var best: Double?
        let options = services.map(allocations)
        var primaries = [Int](repeating: 0, count: databases.count)
        func tryServices(_ index: Int, _ allocation: [[Int]]) {
            if index == services.count {
                evaluate(primaries, allocation)
                return
            }
            for option in options[index] { tryServices(index + 1, allocation + [option]) }
        }
        func evaluate(_ primaries: [Int], _ allocation: [[Int]]) {
            var cpu = [Int](repeating: 0, count: clouds.count), memory = cpu
            var cost = 0.0
            for (index, database) in databases.enumerated() {
                let cloud = clouds[primaries[index]]
                cpu[primaries[index]] += database.vcpu
                memory[primaries[index]] += database.memory
                cost += (Double(database.vcpu) * cloud.vcpuHour + Double(database.memory) * cloud.memoryHour) * 730 + Double(database.storage) * Self.storagePrice
            }
            for (index, service) in services.enumerated() {
                if let limit, allocation[index].indices.contains(where: { allocation[index][$0] > 0 && latency[$0][primaries[service.database]] > limit }) { return }
                for (at, count) in allocation[index].enumerated() where count > 0 {
                    cpu[at] += count * service.cpu
                    memory[at] += count * service.memory
                    cost += Double(count) * (Double(service.cpu) * clouds[at].vcpuHour + Double(service.memory) * clouds[at].memoryHour) * 730
                }
                let primary = primaries[service.database]
                let outside = Double(service.replicas - allocation[index][primary]) / Double(service.replicas)
                cost += service.traffic * outside * clouds[primary].egress
            }
            guard clouds.indices.allSatisfy({ cpu[$0] <= clouds[$0].vcpu && memory[$0] <= clouds[$0].memory }) else { return }
            if best.map({ cost < $0 }) ?? true { best = cost }
        }
        func tryDatabases(_ index: Int) {
            if index == databases.count {
                tryServices(0, [])
                return
            }
            for cloud in clouds.indices {
                primaries[index] = cloud
                tryDatabases(index + 1)
            }
        }
        tryDatabases(0)
        return best
    }
}
