import Foundation
import MCloudCore
import MCloudManifest
import MCloudPlanner

/// Plans a generated input far larger than the bench instances: 200 clouds, 5,000 service cells and 800 database
/// cells by default, built in memory from a seeded generator so every run plans the same input. The shape follows
/// the bench instances: four jurisdictions, a dozen vendors, residency rules for personal data, DR legs on another
/// vendor, public services under latency limits, and cheap local clouds with little capacity beside dear ones with
/// plenty. Prints the planning time and the process's peak resident memory.
enum SyntheticBenchmark {
    struct Size {
        var clouds = 200
        var services = 1_250
        var databases = 200
    }

    /// Audiences and where their clouds are; each audience gets a quarter of the clouds.
    static let regions: [(audience: String, jurisdiction: [String], currency: String, latency: Int)] = [
        ("ru", ["RU"], "RUB", 50), ("eu", ["DE", "EU"], "EUR", 60), ("us", ["US"], "USD", 100), ("kz", ["KZ"], "USD", 80),
    ]

    static func run(_ arguments: [String]) {
        var size = Size()
        var seed: UInt64 = 1
        var boundEvaluations: Int?
        var budget: Int?
        var index = 0
        while index + 1 < arguments.count {
            let value = Int(arguments[index + 1]) ?? 0
            switch arguments[index] {
            case "--clouds": size.clouds = max(8, value)
            case "--services": size.services = max(1, value)
            case "--databases": size.databases = max(1, value)
            case "--seed": seed = UInt64(max(0, value))
            case "--bound-evaluations": boundEvaluations = max(1, value)
            case "--budget": budget = max(1, value)
            default: break
            }
            index += 2
        }
        var generator = Generator(state: seed)
        let documents = (0..<size.clouds).map { cloud($0, &generator) } + [application()]
            + (0..<size.databases).map { database($0, &generator) }
            + (0..<size.services).map { service($0, databases: size.databases, &generator) } + [cdn()]
        let sources = documents.enumerated().map { ManifestLoader.Source(file: "synthetic/\($0.offset).yaml", bytes: Array($0.element.utf8)) }
        let set = ManifestLoader.load(sources)
        guard let model = set.model else {
            print("synthetic input is invalid:")
            set.diagnostics.filter { $0.severity == .error }.prefix(10).forEach { print($0) }
            exit(1)
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = ResourceUsage.cpuSeconds()
        let result = Planner.plan(model, options: Planner.Options(budget: budget, boundEvaluations: boundEvaluations))
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpuSeconds = ResourceUsage.cpuSeconds() - cpuStart
        var table = Table(header: ["clouds", "service cells", "database cells", "cost", "bound", "gap", "steps", "seconds", "cpu s", "peak MiB"])
        switch result {
        case .success(let plan):
            let services = model.cells.filter { $0.kind == .service }.count
            table.rows.append([
                String(model.clouds.count), String(services), String(model.cells.count - services),
                String(format: "%.2f", plan.cost.monthly), String(format: "%.2f", plan.cost.lowerBound),
                String(format: "%.2f%%", plan.cost.gap * 100), String(plan.steps), String(format: "%.2f", seconds),
                String(format: "%.2f", cpuSeconds), String(format: "%.0f", ResourceUsage.peakMiB()),
            ])
            print(table.text)
        case .failure(let failure):
            print("synthetic input has no placement: \(failure)")
            exit(1)
        }
    }

    /// SplitMix64, so the input is the same on every machine.
    struct Generator {
        var source: SplitMix64

        init(state: UInt64) { source = SplitMix64(seed: state) }

        mutating func next() -> UInt64 { source.next() }

        mutating func int(_ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(next() % UInt64(range.count))
        }

        mutating func pick<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }

        /// A factor in [low, high), for prices and latencies.
        mutating func factor(_ low: Double, _ high: Double) -> Double {
            low + (high - low) * Double(next() >> 11) / Double(1 << 53)
        }
    }

    /// Local vendors are cheap with little room; hyperscalers dear with plenty.
    static let vendors: [(name: String, local: Bool)] = [
        ("aws", false), ("gcp", false), ("azure", false), ("ovh", true), ("htz", true), ("sel", true),
        ("yc", false), ("vk", true), ("rt", true), ("kt", true), ("ps", true), ("do", false),
    ]

    static func cloud(_ index: Int, _ random: inout Generator) -> String {
        let region = regions[index % regions.count]
        let vendor = vendors[(index / regions.count) % vendors.count]
        let cheap = vendor.local
        let vcpu = cheap ? 16 * random.int(4...10) : 64 * random.int(6...12)
        let memory = vcpu * random.pick([3, 4, 4, 5])
        let storage = 1_000 * random.int(cheap ? 2...8 : 10...30)
        let rate = region.currency == "RUB" ? 90.0 : (region.currency == "EUR" ? 0.93 : 1.0)
        let price = (cheap ? random.factor(0.008, 0.014) : random.factor(0.025, 0.036)) * rate
        let latency = regions.map { other in
            "\(other.audience): \(other.audience == region.audience ? random.int(5...30) : random.int(40...160))"
        }.joined(separator: ", ")
        let pops = cheap ? [region.jurisdiction.last ?? ""] : regions.map { $0.jurisdiction.last ?? "" }
        return """
            apiVersion: mcloud/v1
            kind: Cloud
            metadata: { name: \(vendor.name)-\(region.audience)-\(index) }
            spec:
              vendor: \(vendor.name)
              api: openstack
              jurisdiction: [\(region.jurisdiction.joined(separator: ", "))]
              region: \(region.audience)-\(index)
              zones: [a, b]
              offers: { kubernetes: true, vm: true, dbaas: [postgresql, redis], objectStorage: true, cdn: { pops: [\(pops.joined(separator: ", "))] } }
              capacity: { vcpu: \(vcpu), memoryGiB: \(memory), storageGiB: \(storage) }
              pricing:
                currency: \(region.currency)
                vcpuHour: \(format(price))
                memoryGiBHour: \(format(price * random.factor(0.11, 0.16)))
                storageGiBMonth: \(format(rate * random.factor(0.05, 0.12)))
                objectStorageGiBMonth: \(format(rate * random.factor(0.015, 0.03)))
                egressGiB: \(format(rate * random.factor(0.01, 0.1)))
                cdnGiB: \(format(rate * random.factor(0.01, 0.08)))
              latencyMs: { \(latency) }
            """
    }

    static func application() -> String {
        """
        apiVersion: mcloud/v1
        kind: Application
        metadata: { name: synthetic }
        spec:
          currency: USD
          exchangeRates: { RUB: 0.011, EUR: 1.08 }
          audiences:
        \(regions.map { "    - { name: \($0.audience), jurisdiction: \($0.jurisdiction.last ?? ""), latencyMs: \($0.latency) }" }.joined(separator: "\n"))
          residency:
            - { data: personal, audience: ru, allowed: [RU], law: "152-FZ" }
            - { data: personal, audience: eu, allowed: [EU], law: GDPR }
            - { data: personal, audience: kz, allowed: [KZ, RU], law: "KZ-94-V" }
          availability: { minClouds: 2, maxShare: 0.67 }
          portability: strict
        """
    }

    static func database(_ index: Int, _ random: inout Generator) -> String {
        let vcpu = random.pick([2, 4, 4, 8, 8, 16])
        let memory = vcpu * random.pick([4, 4, 8])
        let recovery = random.int(0...2) == 0
            ? "\n    disasterRecovery: { differentVendor: \(random.int(0...1) == 0), changeGiBDay: \(random.int(1...20)) }" : ""
        return """
            apiVersion: mcloud/v1
            kind: Database
            metadata: { name: db-\(index) }
            spec:
              engine: \(index % 4 == 3 ? "redis" : "postgresql")
              version: "\(index % 4 == 3 ? "7.2" : "15")"
              scope: perAudience
              size: { vcpu: \(vcpu), memoryGiB: \(memory), storageGiB: \(random.pick([20, 50, 100, 200, 500])) }
              data: [\(isPersonal(index) ? "personal" : random.pick(["operational", "catalog"]))]
              standbys: \(random.int(0...2))
              backup:
                schedule: "0 */6 * * *"
                retentionDays: 14\(recovery)
            """
    }

    static func service(_ index: Int, databases: Int, _ random: inout Generator) -> String {
        let first = random.int(0...databases - 1)
        let targets = [first, (first + random.int(1...max(1, databases - 1))) % databases].prefix(random.int(0...min(2, databases)))
        let dependencies = targets.map { "    - { name: db-\($0), trafficGiBMonth: \(random.int(5...800)) }" }
        // A service that reads personal data is held to the same residency rules as the database that keeps it.
        let data = targets.contains(where: isPersonal) ? "personal" : random.pick(["personal", "operational", "catalog"])
        // svc-0 is the CDN's origin.
        let isPublic = index == 0 || random.int(0...3) == 0
        return """
            apiVersion: mcloud/v1
            kind: Service
            metadata: { name: svc-\(index) }
            spec:
              image: registry.example/svc-\(index):1.0.0
              scope: perAudience
              replicas: \(random.pick([2, 2, 3, 3, 3, 4, 6, 8]))
              resources: { cpu: "\(random.pick(["100m", "250m", "500m", "500m", "1", "2"]))", memory: "\(random.pick(["128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi"]))" }
              ports: [{ name: http, port: 8080 }]
              data: [\(data)]
            \(dependencies.isEmpty ? "" : "  dependsOn:\n" + dependencies.joined(separator: "\n"))
              expose: { public: \(isPublic)\(isPublic ? ", path: /svc-\(index)" : "") }
            """
    }

    /// Half the databases keep personal data.
    static func isPersonal(_ database: Int) -> Bool { database % 2 == 0 }

    static func cdn() -> String {
        """
        apiVersion: mcloud/v1
        kind: CDN
        metadata: { name: static }
        spec:
          origins: [svc-0]
          trafficGiBMonth: 50000
        """
    }

    static func format(_ value: Double) -> String { String(format: "%.5f", value) }
}

/// The process's own use of the machine, from getrusage.
enum ResourceUsage {
    #if os(Linux)
    private static let current = __rusage_who_t(RUSAGE_SELF.rawValue)
    /// ru_maxrss is in KiB on Linux, in bytes on Darwin.
    private static let maxrssUnit = 1024.0
    #else
    private static let current = RUSAGE_SELF
    private static let maxrssUnit = 1.0
    #endif

    /// Peak resident set size so far.
    static func peakMiB() -> Double {
        var usage = rusage()
        getrusage(current, &usage)
        return Double(usage.ru_maxrss) * maxrssUnit / 1_048_576
    }

    /// User plus system CPU time so far: unlike wall time, barely moved by other work on a shared machine.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(current, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
