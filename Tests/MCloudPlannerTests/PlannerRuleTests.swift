import MCloudCore
import MCloudManifest
import MCloudPlanner
import Testing

/// Small hand-made instances, each isolating one rule of planner.md, with the exact placement, cost and reasons.
@Suite struct PlannerRuleTests {
    /// A cloud priced per vCPU-hour and GiB-hour in `currency`; everything else cheap and uniform.
    static func cloud(
        _ name: String, vendor: String? = nil, jurisdiction: String = "[RU]", vcpuHour: Double = 0.01, memoryHour: Double = 0.001,
        currency: String = "USD", capacity: String = "{ vcpu: 100, memoryGiB: 400, storageGiB: 10000 }",
        latency: String = "{ ru: 10, eu: 40 }", cdn: String? = nil, objectStorage: Double = 0.02, egress: Double = 0.05
    ) -> String {
        """
        apiVersion: mcloud/v1
        kind: Cloud
        metadata: { name: \(name) }
        spec:
          vendor: \(vendor ?? name)
          api: openstack
          jurisdiction: \(jurisdiction)
          region: \(name)
          offers: { kubernetes: true, vm: true, objectStorage: true\(cdn.map { ", cdn: { pops: \($0) }" } ?? "") }
          capacity: \(capacity)
          pricing: { currency: \(currency), vcpuHour: \(vcpuHour), memoryGiBHour: \(memoryHour), storageGiBMonth: 0.1, objectStorageGiBMonth: \(objectStorage), egressGiB: \(egress)\(cdn == nil ? "" : ", cdnGiB: 0.01") }
          latencyMs: \(latency)
        """
    }

    static func application(rates: String = "{ RUB: 0.01 }", availability: String = "{ minClouds: 1, maxShare: 1 }") -> String {
        """
        apiVersion: mcloud/v1
        kind: Application
        metadata: { name: bank }
        spec:
          currency: USD
          exchangeRates: \(rates)
          audiences:
            - { name: ru, jurisdiction: RU, latencyMs: 50 }
            - { name: eu, jurisdiction: EU, latencyMs: 60 }
          residency:
            - { data: personal, audience: ru, allowed: [RU], law: 152-FZ }
            - { data: personal, audience: eu, allowed: [EU] }
          availability: \(availability)
        """
    }

    static func service(
        _ name: String = "api", scope: String = "perAudience", replicas: Int = 2, cpu: String = "1", memory: String = "1Gi",
        data: String = "[personal]", isPublic: Bool = false, extra: String = ""
    ) -> String {
        """
        apiVersion: mcloud/v1
        kind: Service
        metadata: { name: \(name) }
        spec:
          image: registry.example/\(name):1
          scope: \(scope)
          replicas: \(replicas)
          resources: { cpu: \(cpu), memory: \(memory) }
          data: \(data)
          expose: { public: \(isPublic) }
        \(extra)
        """
    }

    static func plan(_ documents: [String]) throws -> Result<PlacementPlan, PlacementFailure> {
        let set = ManifestLoader.load([ManifestLoader.Source(file: "test.yaml", bytes: Array(documents.joined(separator: "\n---\n").utf8))])
        #expect(set.diagnostics.isEmpty, "\(set.diagnostics)")
        return Planner.plan(try #require(set.model))
    }

    static func replicas(_ plan: PlacementPlan, _ cell: String) -> [String] {
        plan.services.first { $0.cell == cell }?.replicas.map { "\($0.cloud) \($0.count)" } ?? []
    }

    static func reasons(_ plan: PlacementPlan, _ cell: String, _ cloud: String) -> [String] {
        plan.explanations.first { $0.cell == cell }?.rejected.first { $0.cloud == cloud }?.reasons.map(\.description) ?? []
    }

    @Test func residencyKeepsPersonalDataInItsJurisdictionAndNamesTheLaw() throws {
        let plan = try Self.plan([
            Self.application(),
            Self.cloud("ru-dear", vcpuHour: 0.05),
            Self.cloud("eu-cheap", jurisdiction: "[DE, EU]"),
            Self.service(),
        ]).get()
        #expect(Self.replicas(plan, "api@ru") == ["ru-dear 2"])
        #expect(Self.replicas(plan, "api@eu") == ["eu-cheap 2"])
        #expect(Self.reasons(plan, "api@ru", "eu-cheap") == ["residency: personal data of audience ru allows [RU] (152-FZ), cloud is [DE, EU]"])
        // A rule without a law names none.
        #expect(Self.reasons(plan, "api@eu", "ru-dear") == ["residency: personal data of audience eu allows [EU], cloud is [RU]"])
    }

    @Test func latencyBindsOnlyPublicServices() throws {
        let plan = try Self.plan([
            Self.application(),
            Self.cloud("near", vcpuHour: 0.05),
            Self.cloud("far", latency: "{ ru: 80, eu: 40 }"),
            Self.service("web", data: "[]", isPublic: true),
            Self.service("worker", data: "[]"),
        ]).get()
        #expect(Self.replicas(plan, "web@ru") == ["near 2"])
        #expect(Self.reasons(plan, "web@ru", "far") == ["latency: 80 ms to audience ru, limit 50 ms"])
        #expect(Self.replicas(plan, "worker@ru") == ["far 2"])
    }

    /// floor(maxShare x replicas) on the exact decimal: 0.29 x 100 is 29, so four clouds are needed.
    @Test func spreadHonoursMinCloudsAndTheExactMaxShareFloor() throws {
        let plan = try Self.plan([
            Self.application(availability: "{ minClouds: 2, maxShare: 0.29 }"),
            Self.cloud("a", vcpuHour: 0.010), Self.cloud("b", vcpuHour: 0.011), Self.cloud("c", vcpuHour: 0.012),
            Self.cloud("d", vcpuHour: 0.013), Self.cloud("e", vcpuHour: 0.014),
            Self.service(scope: "global", replicas: 100, cpu: "100m", memory: "128Mi", data: "[]"),
        ]).get()
        #expect(Self.replicas(plan, "api") == ["a 29", "b 29", "c 29", "d 13"])
        #expect(Self.reasons(plan, "api", "e") == ["cost: a replica costs 1.11 USD a month here, more than the clouds chosen (at most 1.04 USD)"])
    }

    @Test func theBackupLegGoesToAnotherVendorWhenAsked() throws {
        let database = """
            apiVersion: mcloud/v1
            kind: Database
            metadata: { name: db }
            spec:
              engine: postgresql
              version: "16"
              scope: global
              size: { vcpu: 2, memoryGiB: 8, storageGiB: 100 }
              backup:
                schedule: "0 3 * * *"
                retentionDays: 7
                disasterRecovery: { differentVendor: true, changeGiBDay: 10 }
            """
        let plan = try Self.plan([
            Self.application(),
            Self.cloud("vk-1", vendor: "vk"),
            Self.cloud("vk-2", vendor: "vk", objectStorage: 0.001),
            Self.cloud("sel-1", vendor: "selectel", vcpuHour: 0.02, objectStorage: 0.03),
            database,
        ]).get()
        #expect(plan.databases.map { "\($0.cell) \($0.primary) \($0.backup ?? "-")" } == ["db vk-1 sel-1"])
        #expect(Self.reasons(plan, "db", "vk-2").contains("dr: same vendor (vk) as the primary vk-1; differentVendor is set"))
        // (2 x 0.01 + 8 x 0.001) x 730 + 100 x 0.1 = 30.44; backup 100 x 0.03 = 3; DR egress 10 x 30 x 0.05 = 15.
        #expect(abs(plan.cost.monthly - 48.44) < 1e-9)
    }

    @Test func capacityPushesADatabaseToTheNextCheapestCloud() throws {
        let database = """
            apiVersion: mcloud/v1
            kind: Database
            metadata: { name: db }
            spec:
              engine: postgresql
              version: "16"
              scope: global
              size: { vcpu: 4, memoryGiB: 16, storageGiB: 100 }
              standbys: 1
            """
        let plan = try Self.plan([
            Self.application(),
            Self.cloud("small", capacity: "{ vcpu: 6, memoryGiB: 64, storageGiB: 1000 }"),
            Self.cloud("large", vcpuHour: 0.02),
            database,
        ]).get()
        #expect(plan.databases.first?.primary == "large")
        #expect(Self.reasons(plan, "db", "small") == [
            "capacity: needs 8 vCPU, 32 GiB memory, 200 GiB storage with its standbys, 6 vCPU, 64 GiB memory, 1000 GiB storage free",
        ])
    }

    @Test func theCDNNeedsAPointOfPresenceForEveryAudience() throws {
        let cdn = """
            apiVersion: mcloud/v1
            kind: CDN
            metadata: { name: static }
            spec:
              origins: [web]
              audiences: [ru]
              trafficGiBMonth: 1000
            """
        let plan = try Self.plan([
            Self.application(),
            Self.cloud("eu-pops", cdn: "[EU]"),
            Self.cloud("ru-pops", vcpuHour: 0.02, cdn: "[RU, KZ]"),
            Self.service("web", data: "[]", isPublic: true),
            cdn,
        ]).get()
        #expect(plan.cdns.map { "\($0.name) \($0.cloud)" } == ["static ru-pops"])
    }

    /// 1 vCPU at 1.5 RUB and 1 GiB at 0.5 RUB an hour, at 0.01 USD a RUB: (1.5 + 0.5) x 730 x 0.01 = 14.60 USD a replica.
    @Test func pricesConvertToTheApplicationsCurrency() throws {
        let plan = try Self.plan([
            Self.application(),
            Self.cloud("rub", vcpuHour: 1.5, memoryHour: 0.5, currency: "RUB"),
            Self.service(scope: "global", replicas: 3, data: "[]"),
        ]).get()
        #expect(Self.replicas(plan, "api") == ["rub 3"])
        #expect(abs(plan.cost.monthly - 43.8) < 1e-9)
        #expect(plan.cost.byCloud.map(\.cloud) == ["rub"])
    }

    @Test func anInfeasibleCellGetsASchedulerStyleSummary() throws {
        let result = try Self.plan([
            Self.application(),
            Self.cloud("eu", jurisdiction: "[DE, EU]"),
            Self.cloud("far", latency: "{ ru: 90 }"),
            Self.service("web", isPublic: true),
        ])
        guard case .failure(let failure) = result else {
            Issue.record("expected no placement")
            return
        }
        #expect(failure.cells.first { $0.cell == "web@ru" }?.summary == "web@ru: 0/2 clouds fit: 1 residency (152-FZ), 1 latency")
        #expect(failure.cells.first { $0.cell == "web@ru" }?.hints == [
            "raise audience ru's latencyMs from 50 to 90: the nearest cloud that meets every other rule is far at 90 ms",
        ])
    }

    @Test func aGlobalCellUnderTwoDisjointLawsGetsTheFix() throws {
        let result = try Self.plan([
            Self.application(),
            Self.cloud("ru"), Self.cloud("eu", jurisdiction: "[EU]"),
            Self.service(scope: "global"),
        ])
        guard case .failure(let failure) = result else {
            Issue.record("expected no placement")
            return
        }
        #expect(failure.cells.map(\.summary) == ["api: 0/2 clouds fit: 2 residency (152-FZ)"])
        #expect(failure.cells.first?.hints == [
            "a global cell handling personal data of ru and eu can never satisfy both 152-FZ and [EU]: make api perAudience",
        ])
    }

    @Test func spreadThatCannotBeMetSaysHowToRelaxIt() throws {
        let result = try Self.plan([
            Self.application(availability: "{ minClouds: 2, maxShare: 0.5 }"),
            Self.cloud("a"), Self.cloud("b", jurisdiction: "[EU]"),
            Self.service(scope: "perAudience", replicas: 4, data: "[personal]"),
        ])
        guard case .failure(let failure) = result else {
            Issue.record("expected no placement")
            return
        }
        #expect(failure.cells.map(\.summary) == [
            "api@eu: 0/2 clouds fit: 1 residency, 1 spread",
            "api@ru: 0/2 clouds fit: 1 residency (152-FZ), 1 spread",
        ])
        // Neither key relaxed alone places the cell (1 cloud with minClouds 2; 2 replicas a cloud with maxShare 0.5),
        // so only the two together are offered.
        #expect(failure.cells.first?.hints == [
            "lower minClouds to 1 and raise maxShare to 1.00 so 1 cloud can hold 4 replicas, or add clouds that meet every rule",
        ])
    }

    @Test func aCellThatFitsNowhereForCapacityNamesWhatEachCloudHasLeft() throws {
        let database = """
            apiVersion: mcloud/v1
            kind: Database
            metadata: { name: db }
            spec:
              engine: postgresql
              version: "16"
              scope: global
              size: { vcpu: 8, memoryGiB: 16, storageGiB: 100 }
            """
        let result = try Self.plan([
            Self.application(),
            Self.cloud("a", capacity: "{ vcpu: 4, memoryGiB: 64, storageGiB: 1000 }"),
            Self.cloud("b", jurisdiction: "[EU]", capacity: "{ vcpu: 6, memoryGiB: 64, storageGiB: 1000 }"),
            database,
        ])
        guard case .failure(let failure) = result else {
            Issue.record("expected no placement")
            return
        }
        #expect(failure.cells.map(\.summary) == ["db: 0/2 clouds fit: 2 capacity"])
        #expect(failure.cells.first?.rejected.map { "\($0.cloud): \($0.reasons.map(\.description).joined(separator: "; "))" } == [
            "a: capacity: needs 8 vCPU, 16 GiB memory, 100 GiB storage with its standbys, 4 vCPU, 64 GiB memory, 1000 GiB storage free",
            "b: capacity: needs 8 vCPU, 16 GiB memory, 100 GiB storage with its standbys, 6 vCPU, 64 GiB memory, 1000 GiB storage free",
        ])
        #expect(failure.cells.first?.hints == ["add 8 vCPU, 16 GiB memory, 100 GiB storage to a's capacity, which passes every rule for db; or lower its size or standbys"])
    }
}
