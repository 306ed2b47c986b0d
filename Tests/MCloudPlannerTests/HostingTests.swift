import Foundation
import MCloudCore
import MCloudManifest
import MCloudPlanner
import Testing

/// `spec.hosting` and `disasterRecovery.restore` (docs/manifests.md, docs/dr.md): the planner honours the hosting asked
/// for, says why a cloud is passed over for it, and never accepts a DR leg that failover cannot restore unless the
/// manifest says it will be restored by hand.
@Suite struct HostingTests {
    typealias Rule = PlannerRuleTests

    /// A cloud selling postgresql managed; with `vm: false`, nothing else.
    static func managed(_ name: String, vm: Bool = true, vcpuHour: Double = 0.001, objectStorage: Double = 0.02) -> String {
        Rule.cloud(name, vcpuHour: vcpuHour, objectStorage: objectStorage)
            .replacingOccurrences(of: "offers: { kubernetes: true, vm: true, objectStorage: true }", with: "offers: { kubernetes: true, vm: \(vm), objectStorage: true, dbaas: [postgresql] }")
    }

    /// A global postgresql with a DR leg, as the hint table's, with the hosting and restore asked for.
    static func database(hosting: String? = nil, restore: String? = nil) -> String {
        let extra = (hosting.map { "  hosting: \($0)\n" } ?? "") + """
              backup:
                schedule: "0 2 * * *"
                retentionDays: 7
                disasterRecovery: { changeGiBDay: 1\(restore.map { ", restore: \($0)" } ?? "") }
            """
        return HintTableTests.database(scope: "global", data: "[]", extra: extra)
    }

    static func model(_ documents: [String]) throws -> Model {
        let set = ManifestLoader.load([ManifestLoader.Source(file: "test.yaml", bytes: Array(documents.joined(separator: "\n---\n").utf8))])
        #expect(!set.diagnostics.hasErrors, "\(set.diagnostics)")
        return try #require(set.model)
    }

    @Test func aVMHostingPassesOverACloudThatSellsTheEngineOnlyManagedAndSaysWhy() throws {
        let model = try Self.model([Rule.application(), Self.managed("cheap", vm: false, objectStorage: 0.05), Rule.cloud("dear", vcpuHour: 0.05), Rule.cloud("leg", vcpuHour: 0.09), Self.database(hosting: "vm")])
        let plan = try Planner.plan(model).get()
        #expect(plan.databases.map(\.primary) == ["dear"])
        #expect(Rule.reasons(plan, "db", "cheap").first == "capability: hosting: vm, so not its managed postgresql, and no VMs")
        #expect(RestorableLegs.failure(model, plan) == nil)
    }

    @Test func aManagedHostingPassesOverACloudWithoutTheManagedEngine() throws {
        let model = try Self.model([Rule.application(), Self.managed("dear", vcpuHour: 0.05), Rule.cloud("leg"), Rule.cloud("cheap", objectStorage: 0.05), Self.database(hosting: "managed", restore: "manual")])
        let plan = try Planner.plan(model).get()
        #expect(plan.databases.map(\.primary) == ["dear"])
        #expect(Rule.reasons(plan, "db", "cheap").first == "capability: hosting: managed, and no managed postgresql (offers.dbaas)")
    }

    /// The issue's finding 3: a managed primary with a DR leg got a bucket and a copyTo, and failover could never use it.
    @Test func aManagedPrimaryWithADRLegFailoverCannotRestoreIsRefusedWithTheTwoWaysOut() throws {
        let model = try Self.model([Rule.application(), Self.managed("cheap"), Rule.cloud("dear", vcpuHour: 0.05), Self.database()])
        let plan = try Planner.plan(model).get()
        #expect(plan.databases.map(\.primary) == ["cheap"])
        let failure = try #require(RestorableLegs.failure(model, plan))
        #expect(failure.cells.map(\.summary) == [
            "db: its DR leg cannot be restored: the primary on cheap would be the cloud's managed postgresql (hosting: any)",
        ])
        #expect(failure.cells.first?.hints == [
            "set hosting: vm, so failover can restore the primary from its DR leg",
            "set disasterRecovery.restore: manual to keep the managed engine and restore it by hand",
        ])
    }

    @Test(arguments: [("manual", nil), (nil, "vm")] as [(String?, String?)])
    func aLegIsAcceptedOnceItsRestoreIsStatedOrItsPrimaryIsAVM(restore: String?, hosting: String?) throws {
        let model = try Self.model([Rule.application(), Self.managed("cheap"), Rule.cloud("dear", vcpuHour: 0.05), Self.database(hosting: hosting, restore: restore)])
        let plan = try Planner.plan(model).get()
        #expect(RestorableLegs.failure(model, plan) == nil)
        // A VM hosting still takes the cheap cloud, on its VMs.
        #expect(plan.databases.map(\.primary) == ["cheap"])
    }
}
