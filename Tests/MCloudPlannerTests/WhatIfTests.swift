import MCloudCore
import MCloudManifest
import MCloudPlanner
import MCloudViews
import Testing

/// `plan --lose`: hand-made instances (Fixtures/what-if, also the CLI goldens') where losing a cloud moves a cell at a
/// higher cost, leaves a cell with nowhere its law allows, or pushes a DR leg to a third vendor; exact placements,
/// costs and reasons.
@Suite struct WhatIfTests {
    static let fixtures = String(#filePath.split(separator: "/Tests/")[0]) + "/Tests/MCloudPlannerTests/Fixtures/what-if"

    static func whatIf(_ instance: String, losing lost: Set<String>) throws -> WhatIf {
        let set = ManifestLoader.load(paths: ["\(fixtures)/\(instance)/Manifests"], providers: "\(fixtures)/\(instance)/Providers")
        #expect(set.diagnostics.isEmpty, "\(set.diagnostics)")
        return try WhatIf.plan(try #require(set.model), losing: lost).get()
    }

    static func sites(_ plan: PlacementPlan) -> [String] {
        plan.services.map { "\($0.cell): " + $0.replicas.map { "\($0.cloud) \($0.count)" }.joined(separator: ", ") }
            + plan.databases.map { "\($0.cell): primary \($0.primary)" + ($0.backup.map { ", backup \($0)" } ?? "") }
    }

    static func reasons(_ plan: PlacementPlan, _ cell: String, _ cloud: String) -> [String] {
        plan.explanations.first { $0.cell == cell }?.rejected.first { $0.cloud == cloud }?.reasons.map(\.description) ?? []
    }

    /// Replicas at (1 vCPU x 0.01 + 1 GiB x 0.001) x 730 = 8.03 USD in ru-cheap, (0.02 + 0.001) x 730 = 15.33 in ru-dear.
    @Test func losingTheCheapCloudMovesTheCellToTheDearerOneOfTheSameJurisdiction() throws {
        let whatIf = try Self.whatIf("moves", losing: ["ru-cheap"])
        #expect(Self.sites(whatIf.current) == ["api@eu: eu-1 2", "api@ru: ru-cheap 2"])
        #expect(Self.sites(whatIf.after) == ["api@eu: eu-1 2", "api@ru: ru-dear 2"])
        #expect(whatIf.unplaceable.isEmpty)
        #expect(abs(whatIf.current.cost.monthly - 32.12) < 1e-9)
        #expect(abs(whatIf.after.cost.monthly - 46.72) < 1e-9)
        #expect(Self.reasons(whatIf.after, "api@ru", "ru-cheap") == ["lost: the cloud is taken as gone"])
        #expect(Self.reasons(whatIf.after, "api@ru", "eu-1") == ["residency: personal data of audience ru allows [RU] (152-FZ), cloud is [DE, EU]"])

        let report = WhatIfReport(whatIf)
        #expect(report.moves.map { "\($0.name) \($0.before.kind) \($0.monthlyBefore) -> \($0.monthlyAfter)" } == ["api@ru Service 16.06 -> 30.66"])
        #expect(report.unchanged == 1)
        #expect(report.cost.delta?.monthly == 14.6)
    }

    @Test func aCellWhoseLawAllowsOnlyTheLostCloudCannotBePlacedAndSaysWhy() throws {
        let whatIf = try Self.whatIf("residency", losing: ["ru-1"])
        #expect(Self.sites(whatIf.current) == ["db@eu: primary eu-1", "db@ru: primary ru-1"])
        // The rest is still placed, without the cell that has nowhere to go.
        #expect(Self.sites(whatIf.after) == ["db@eu: primary eu-1"])
        #expect(whatIf.unplaceable.map(\.summary) == ["db@ru: 0/3 clouds fit: 2 residency (152-FZ), 1 lost"])
        #expect(whatIf.unplaceable.first?.rejected.map { "\($0.cloud): \($0.reasons.map(\.description).joined(separator: "; "))" } == [
            "eu-1: residency: personal data of audience ru allows [RU] (152-FZ), cloud is [DE, EU]",
            "eu-2: residency: personal data of audience ru allows [RU] (152-FZ), cloud is [IE, EU]",
            "ru-1: lost: the cloud is taken as gone",
        ])
        #expect(whatIf.unplaceable.first?.hints == [
            "only the lost cloud ru-1 passes the other filters: add a cloud where the cell may run under the same rules, or relax the rule that binds it",
            "no cloud that meets the other rules is where 152-FZ allows [RU]: they are tagged DE (eu-1), EU (eu-1, eu-2), IE (eu-2); add a cloud in RU like eu-1",
        ])
        // (2 x 0.01 + 8 x 0.001) x 730 + 100 x 0.1 = 30.44 a cell.
        #expect(abs(whatIf.current.cost.monthly - 60.88) < 1e-9)
        #expect(abs(whatIf.after.cost.monthly - 30.44) < 1e-9)
        let report = WhatIfReport(whatIf)
        #expect(report.moves.isEmpty)
        #expect(report.unplaceable.map(\.before) == [.cell(.database(primary: "ru-1", backup: nil))])
    }

    /// Compute 30.44, DR egress 10 GiB a day x 30 x 0.05 = 15; the leg 100 GiB x 0.03 in sel-1, x 0.05 in cloudru-1.
    @Test func losingTheBackupVendorsOnlyCloudSendsTheLegToAThirdVendor() throws {
        let whatIf = try Self.whatIf("third-vendor", losing: ["sel-1"])
        #expect(Self.sites(whatIf.current) == ["db: primary vk-1, backup sel-1"])
        #expect(Self.sites(whatIf.after) == ["db: primary vk-1, backup cloudru-1"])
        #expect(abs(whatIf.current.cost.monthly - 48.44) < 1e-9)
        #expect(abs(whatIf.after.cost.monthly - 50.44) < 1e-9)
        #expect(Self.reasons(whatIf.after, "db", "sel-1") == ["lost: the cloud is taken as gone"])
        // vk-2 stores for a fiftieth of the price, but it is the primary's vendor.
        #expect(Self.reasons(whatIf.after, "db", "vk-2").first == "dr: same vendor (vk) as the primary vk-1; differentVendor is set")
    }

    @Test func losingAVendorLosesEveryCloudOfItAndTheSummaryCountsThemAsLost() throws {
        let whatIf = try Self.whatIf("third-vendor", losing: ["vk-1", "vk-2"])
        #expect(Self.sites(whatIf.after) == ["db: primary cloudru-1, backup sel-1"])
        #expect(whatIf.lost == ["vk-1", "vk-2"])
    }

    @Test func theWhatIfIsDeterministic() throws {
        let first = WhatIfReport(try Self.whatIf("third-vendor", losing: ["sel-1"])).json.serialized()
        let second = WhatIfReport(try Self.whatIf("third-vendor", losing: ["sel-1"])).json.serialized()
        #expect(first == second)
    }
}
