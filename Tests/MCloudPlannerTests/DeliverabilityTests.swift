import Foundation
import MCloudCore
import MCloudDatabaseEngines
import MCloudManifest
import MCloudPlanner
import Testing

/// The planner places a database only where it can be delivered: a managed offer of its engine, or VMs whose image
/// family the engine catalog has a recipe of its engine and version for; the clouds it passes over say why.
@Suite struct DeliverabilityTests {
    static let root = String(#filePath.split(separator: "/Tests/")[0])

    static let mongo = """
        apiVersion: mcloud/v1
        kind: Database
        metadata: { name: events }
        spec:
          engine: mongodb
          version: "7.0"
          scope: global
          size: { vcpu: 2, memoryGiB: 8, storageGiB: 100 }
        """

    /// A cloud whose database VMs boot Ubuntu 24.04, which has no MongoDB 7.0 recipe.
    static func noble(_ name: String, dbaas: String = "") -> String {
        PlannerRuleTests.cloud(name, vcpuHour: 0.001)
            .replacingOccurrences(of: "objectStorage: true }", with: "objectStorage: true\(dbaas) }")
            .replacingOccurrences(of: "  capacity:", with: "  vm: { image: { family: ubuntu-24.04, name: noble-server } }\n  capacity:")
    }

    @Test func aCloudWhoseImageHasNoRecipeIsPassedOverWithTheReason() throws {
        let plan = try PlannerRuleTests.plan([PlannerRuleTests.application(), Self.noble("cheap"), PlannerRuleTests.cloud("dear", vcpuHour: 0.05), Self.mongo]).get()
        #expect(plan.databases.map { "\($0.cell) \($0.primary)" } == ["events dear"])
        #expect(PlannerRuleTests.reasons(plan, "events", "cheap") == [
            "capability: no managed mongodb, and no mongodb 7.0 recipe for its VM image ubuntu-24.04 (recipes: 8.0)",
        ])
    }

    @Test func aManagedOfferDeliversWhatItsVMsCannot() throws {
        let plan = try PlannerRuleTests.plan([
            PlannerRuleTests.application(), Self.noble("cheap", dbaas: ", dbaas: [mongodb]"), PlannerRuleTests.cloud("dear", vcpuHour: 0.05), Self.mongo,
        ]).get()
        #expect(plan.databases.map { "\($0.cell) \($0.primary)" } == ["events cheap"])
    }

    /// A managed offer with versions delivers only those: MongoDB 7.0 on a cloud selling 6.0 and 8.0 managed and no
    /// 7.0 recipe on its VMs is passed over, saying which versions it sells; where it sells 7 (any 7.x), it is placed.
    @Test("a managed offer with versions delivers only a version it lists", arguments: [
        (", dbaas: { mongodb: [\"6.0\", \"8.0\"] }", "events dear", ["capability: no managed mongodb 7.0 (it sells 6.0, 8.0), and no mongodb 7.0 recipe for its VM image ubuntu-24.04 (recipes: 8.0)"]),
        (", dbaas: { mongodb: [\"7\"] }", "events cheap", [String]()),
    ])
    func aManagedOfferWithVersionsDeliversOnlyThose(dbaas: String, placed: String, reasons: [String]) throws {
        let plan = try PlannerRuleTests.plan([
            PlannerRuleTests.application(), Self.noble("cheap", dbaas: dbaas), PlannerRuleTests.cloud("dear", vcpuHour: 0.05), Self.mongo,
        ]).get()
        #expect(plan.databases.map { "\($0.cell) \($0.primary)" } == [placed])
        #expect(PlannerRuleTests.reasons(plan, "events", "cheap") == reasons)
    }

    /// Standbys on VMs whose recipe cannot replicate: the VM clouds are passed over with the reason, and the cell
    /// lands where a cloud sells the engine managed.
    @Test func standbysThatCouldNotReplicateOnVMsLeaveOnlyTheManagedOffer() throws {
        let mongo = Self.mongo.replacingOccurrences(of: "version: \"7.0\"", with: "version: \"8.0\"") + "\n  standbys: 1"
        let plan = try PlannerRuleTests.plan([
            PlannerRuleTests.application(), Self.noble("cheap"), Self.noble("dear", dbaas: ", dbaas: [mongodb]").replacingOccurrences(of: "0.001", with: "0.05"), mongo,
        ]).get()
        #expect(plan.databases.map { "\($0.cell) \($0.primary)" } == ["events dear"])
        #expect(PlannerRuleTests.reasons(plan, "events", "cheap") == [
            "capability: no managed mongodb, and standbys: 1, whose mongodb 8.0 on ubuntu-24.04 cannot replicate yet",
        ])
    }

    /// The shared bench's references solve docs/planner.md's problem, where a standby is capacity and cost only: under
    /// that rule (the benchmark's alone) the same manifests validate and the cheap VM cloud takes the primary and its
    /// standby; under mcloud's own rule, no cloud can deliver them and validation says so at `spec.standbys`.
    @Test func theSpecificationsRuleCountsAStandbyThatCannotReplicateAsCapacityOnly() throws {
        let mongo = Self.mongo.replacingOccurrences(of: "version: \"7.0\"", with: "version: \"8.0\"") + "\n  standbys: 1"
        let documents = [PlannerRuleTests.application(), Self.noble("cheap"), Self.noble("dear").replacingOccurrences(of: "0.001", with: "0.05"), mongo]
        let source = ManifestLoader.Source(file: "test.yaml", bytes: Array(documents.joined(separator: "\n---\n").utf8))

        let strict = ManifestLoader.load([source])
        #expect(strict.model == nil)
        let errors = strict.diagnostics.filter { $0.severity == .error }.map(\.message)
        #expect(errors.count == 1)
        #expect(errors.allSatisfy { $0.hasPrefix("spec.standbys: 1, and mcloud's mongodb \"8.0\" VMs cannot replicate") })

        let specification = ManifestLoader.load([source], standbyRule: .capacityOnly)
        let model = try #require(specification.model, "\(specification.diagnostics)")
        #expect(model.standbyRule == .capacityOnly)
        let plan = try Planner.plan(model).get()
        #expect(plan.databases.map { "\($0.cell) \($0.primary)" } == ["events cheap"])
    }

    /// The aws provider makes managed databases in RDS only (docs/aws.md): a bundled AWS cloud selling redis managed
    /// would have a cell planned as a ManagedDatabase that apply refuses.
    @Test func theBundledAWSCloudsSellManagedOnlyWhatRDSRuns() throws {
        let clouds = try #require(ManifestLoader.catalog(providers: "\(Self.root)/Providers").clouds)
        let aws = clouds.filter { $0.api == .aws }
        #expect(aws.count == 3)
        for cloud in aws {
            #expect(Set(cloud.offers.dbaas).isSubset(of: ["postgresql", "mysql"]), "\(cloud.name): \(cloud.offers.dbaas)")
        }
    }

    @Test func everyExampleDatabaseLandsWhereItCanBeDelivered() throws {
        for example in ["retail-bank", "shop", "telemed"] {
            let set = ManifestLoader.load(paths: ["\(Self.root)/Manifests/\(example)"], providers: "\(Self.root)/Providers")
            let model = try #require(set.model, "\(example): \(set.diagnostics)")
            let plan = try Planner.plan(model).get()
            let clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            for placed in plan.databases {
                let database = try #require(model.databases.first { placed.cell == $0.name || placed.cell.hasPrefix("\($0.name)@") })
                let cloud = try #require(clouds[placed.primary])
                let managed = cloud.offers.sellsManaged(database.engine, version: database.version)
                let recipe = ImageFamily(rawValue: cloud.vmImage.family).flatMap { EngineCatalog.recipe(engine: database.engine, version: database.version, family: $0) }
                #expect(managed || recipe != nil, "\(example): \(placed.cell) on \(placed.primary)")
                // No standby in any example is a VM that holds no data.
                #expect(managed || database.standbys == 0 || recipe?.replicates == true, "\(example): \(placed.cell)'s standbys on \(placed.primary)")
            }
        }
    }
}
