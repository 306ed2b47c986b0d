import Foundation
import MCloudCore

/// A placement input of any size, made by a seeded generator, so every run and every machine gets the same one: the
/// benchmark's far larger than the bench instances, and the instances the tests and the report's screenshots use
/// from the repository alone. The shape follows the bench instances: four jurisdictions, a dozen vendors, residency
/// rules for personal data, DR legs on another vendor, public services under latency limits, and cheap local clouds
/// with little capacity beside dear ones with plenty.
public struct SyntheticInstance: Sendable {
    public struct Size: Sendable, Hashable {
        public var clouds: Int
        /// Workloads; every one is perAudience, so it makes a cell for each of the four audiences.
        public var services: Int
        public var databases: Int

        public init(clouds: Int = 200, services: Int = 1_250, databases: Int = 200) {
            self.clouds = max(8, clouds)
            self.services = max(1, services)
            self.databases = max(1, databases)
        }
    }

    /// One manifest file: its path relative to the instance's folder, and its YAML.
    public struct File: Sendable, Hashable {
        public var path: String
        public var text: String
    }

    public var size: Size
    public var seed: UInt64
    /// The manifests in the bench instances' layout: `Providers/<vendor>.yaml`, one file per vendor, and
    /// `Manifests/app.yaml`, the application with its databases, services and CDN.
    public let files: [File]

    public init(size: Size = Size(), seed: UInt64 = 1) {
        self.size = size
        self.seed = seed
        var random = Generator(state: seed)
        let clouds = (0..<size.clouds).map { Self.cloud($0, &random) }
        let workloads = [Self.application()] + (0..<size.databases).map { Self.database($0, &random) }
            + (0..<size.services).map { Self.service($0, databases: size.databases, &random) } + [Self.cdn()]
        var byVendor: [String: [String]] = [:]
        for (index, cloud) in clouds.enumerated() {
            byVendor[Self.vendor(of: index).name, default: []].append(cloud)
        }
        files = byVendor.keys.sorted().map { File(path: "Providers/\($0).yaml", text: Self.join(byVendor[$0] ?? [])) }
            + [File(path: "Manifests/app.yaml", text: Self.join(workloads))]
    }

    /// Writes the files under `directory` (made if missing), as `mcloud -f DIR/Manifests --providers DIR/Providers` reads them.
    public func write(to directory: String) throws {
        for file in files {
            let url = URL(fileURLWithPath: directory).appendingPathComponent(file.path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.text.utf8).write(to: url)
        }
    }

    /// The clouds' names, in the order they were made.
    public var cloudNames: [String] { (0..<size.clouds).map(Self.cloudName) }

    /// Every document, clouds first, in the order the files hold them.
    public var documents: [String] {
        files.flatMap { file in file.text.components(separatedBy: "\n---\n").map { $0.hasSuffix("\n") ? String($0.dropLast()) : $0 } }
    }

    private static func join(_ documents: [String]) -> String {
        documents.joined(separator: "\n---\n") + "\n"
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

    /// Audiences and where their clouds are; each audience gets a quarter of the clouds.
    static let regions: [(audience: String, jurisdiction: [String], currency: String, latency: Int)] = [
        ("ru", ["RU"], "RUB", 50), ("eu", ["DE", "EU"], "EUR", 60), ("us", ["US"], "USD", 100), ("kz", ["KZ"], "USD", 80),
    ]

    /// Local vendors are cheap with little room; hyperscalers dear with plenty.
    static let vendors: [(name: String, local: Bool)] = [
        ("aws", false), ("gcp", false), ("azure", false), ("ovh", true), ("htz", true), ("sel", true),
        ("yc", false), ("vk", true), ("rt", true), ("kt", true), ("ps", true), ("do", false),
    ]

    static func vendor(of cloud: Int) -> (name: String, local: Bool) {
        vendors[(cloud / regions.count) % vendors.count]
    }

    static func cloudName(_ index: Int) -> String { "\(vendor(of: index).name)-\(regions[index % regions.count].audience)-\(index)" }

    static func cloud(_ index: Int, _ random: inout Generator) -> String {
        let region = regions[index % regions.count]
        let vendor = vendor(of: index)
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
            metadata: { name: \(cloudName(index)) }
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
          unrestrictedData: [catalog, operational]
          availability: { minClouds: 2, maxShare: 0.67 }
          portability: strict
        """
    }

    static func database(_ index: Int, _ random: inout Generator) -> String {
        let vcpu = random.pick([2, 4, 4, 8, 8, 16])
        let memory = vcpu * random.pick([4, 4, 8])
        // Restored by hand: the catalog sells postgresql and redis managed, which failover cannot restore from a leg
        // (docs/dr.md), and the instance is a placement problem, not a deployment.
        let recovery = random.int(0...2) == 0
            ? "\n    disasterRecovery: { differentVendor: \(random.int(0...1) == 0), changeGiBDay: \(random.int(1...20)), restore: manual }" : ""
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
