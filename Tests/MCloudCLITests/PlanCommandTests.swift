import Foundation
import MCloudCore
import Testing

@Suite struct PlanCommandTests {
    static let providers = "\(repositoryRoot)/Providers"
    /// A state that does not exist: the plans of a new deployment, whatever a developer applied from the checkout.
    static let noState = "file://\(NSTemporaryDirectory())mcloud-no-state-\(UUID().uuidString)/state.json"

    /// The human plan and the JSON plan of every bundled example; both come from one document. `--explain` adds every
    /// considered cloud and every reason to the JSON (its own golden) and changes nothing else.
    @Test(arguments: ["retail-bank", "shop", "telemed"])
    func bundledExamplesPlanToTheirGoldenOutput(_ application: String) async throws {
        let arguments = ["plan", "-f", "\(repositoryRoot)/Manifests/\(application)", "--providers", Self.providers, "--state", Self.noState]
        let human = await mcloudRun(arguments)
        #expect(human.exitCode == 0)
        #expect(human.stderr == "")
        try Golden.check(human.stdout, named: "plan-\(application).txt")
        let json = await mcloudRun(arguments + ["--json"])
        #expect(json.exitCode == 0)
        try Golden.check(json.stdout, named: "plan-\(application).json")
        let brief = try JSONParser.parse(Array(json.stdout.utf8))
        let whole = try JSONParser.parse(Array(await mcloudRun(arguments + ["--json", "--explain"]).stdout.utf8))
        let reasons = JSONValue.object([("explanations", whole["explanations"] ?? .null), ("considered", whole["considered"] ?? .null)])
        try Golden.check(reasons.serialized() + "\n", named: "plan-\(application)-reasons.json")
        let kept = whole.objectPairs.filter { $0.0 != "explanations" && $0.0 != "considered" }
        #expect(JSONValue.object(kept) == JSONValue.object(brief.objectPairs.filter { $0.0 != "considered" }))
    }

    @Test func explainShowsOneCellWithItsRunnerUp() async throws {
        let run = await mcloudRun(["explain", "payments-api@ru", "-f", "\(repositoryRoot)/Manifests/retail-bank", "--providers", Self.providers])
        #expect(run.exitCode == 0)
        try Golden.check(run.stdout, named: "explain-payments-api-ru.txt")
    }

    /// Every verdict in five clouds (Fixtures/considered): chosen, runner-up, full, no backup leg; byte for byte, and
    /// the same on every run.
    @Test func consideredCloudsOfASmallInstanceMatchTheirGolden() async throws {
        let arguments = ["plan", "--placement-only", "--json", "--explain", "-f", "\(fixtures)/considered/Manifests", "--providers", "\(fixtures)/considered/Providers"]
        let run = await mcloudRun(arguments)
        #expect(run.exitCode == 0)
        let considered = try #require(try JSONParser.parse(Array(run.stdout.utf8))["considered"])
        try Golden.check(considered.serialized() + "\n", named: "considered-ledger.json")
        #expect(await mcloudRun(arguments).stdout == run.stdout)
        for cell in ["ledger-db@ru", "api@ru"] {
            let explained = await mcloudRun(["explain", cell, "-f", "\(fixtures)/considered/Manifests", "--providers", "\(fixtures)/considered/Providers"])
            #expect(explained.exitCode == 0)
            try Golden.check(explained.stdout, named: "explain-\(cell.replacingOccurrences(of: "@", with: "-")).txt")
        }
    }

    @Test func explainingAnUnknownCellSuggestsTheNearestName() async {
        let run = await mcloudRun(["explain", "payment-api@ru", "-f", "\(repositoryRoot)/Manifests/retail-bank", "--providers", Self.providers])
        #expect(run.exitCode == 1)
        #expect(run.stderr == "error: no cell or CDN named 'payment-api@ru'; did you mean 'payments-api@ru'?\n")
    }

    /// A CDN is placed on a cloud with a PoP in each jurisdiction it reaches: those clouds with its cost on each, and
    /// why every other cloud cannot serve it (issue 33, finding 9).
    @Test func explainShowsACDNWithTheCloudsThatHavePoPsForIt() async throws {
        let run = await mcloudRun(["explain", "static-ru", "-f", "\(repositoryRoot)/Manifests/retail-bank", "--providers", Self.providers])
        #expect(run.exitCode == 0, "\(run.stderr)")
        try Golden.check(run.stdout, named: "explain-static-ru.txt")
    }

    static let unplaceable = ["-f", "\(fixtures)/unplaceable/Manifests", "--providers", "\(fixtures)/unplaceable/Providers"]

    /// A plan that fails prints, with --explain, every cloud's reasons under each cell that cannot be placed, after its
    /// summary and the hints checked to place it (Fixtures/unplaceable: no cloud in Uzbekistan).
    @Test func aFailedPlanWithExplainGivesEveryCloudsReasonsAndCheckedHints() async throws {
        let run = await mcloudRun(["plan", "--placement-only", "--explain"] + Self.unplaceable)
        #expect(run.exitCode == 1)
        #expect(run.stdout == "")
        try Golden.check(run.stderr, named: "plan-explain-unplaceable.txt")
    }

    /// `explain` on a cell no placement fits: every cloud and the filter that rejected it, and the checked hints.
    @Test(arguments: ["customers-db@uz", "storefront@uz", "static"])
    func explainShowsACellThatCannotBePlaced(_ cell: String) async throws {
        let run = await mcloudRun(["explain", cell] + Self.unplaceable)
        #expect(run.exitCode == 0, "\(run.stderr)")
        try Golden.check(run.stdout, named: "explain-unplaceable-\(cell.replacingOccurrences(of: "@", with: "-")).txt")
    }

    /// A cell that fits while others cannot is explained in the placement of the rest, with a note naming them.
    @Test func explainShowsAPlaceableCellWhileOthersCannotBePlaced() async throws {
        let run = await mcloudRun(["explain", "storefront@ru"] + Self.unplaceable)
        #expect(run.exitCode == 0)
        #expect(run.stdout.hasPrefix("storefront@ru (Service)\n  placement: ru-msk 2\n"))
        #expect(run.stderr.hasSuffix("note: customers-db@uz, static, storefront@uz cannot be placed (mcloud explain customers-db@uz); storefront@ru is explained in the placement of the rest\n"))
    }

    /// A copy of a bundled example in a fresh temporary folder, with one of its files edited; the caller removes it.
    static func example(_ name: String, editing file: String, _ edit: (String) -> String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let source = URL(fileURLWithPath: "\(repositoryRoot)/Manifests/\(name)")
        for copied in try FileManager.default.contentsOfDirectory(atPath: source.path) where copied != file {
            try FileManager.default.copyItem(at: source.appendingPathComponent(copied), to: directory.appendingPathComponent(copied))
        }
        try edit(try String(contentsOf: source.appendingPathComponent(file), encoding: .utf8))
            .write(to: directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
        return directory
    }

    @Test func anInfeasiblePlanExitsOneWithTheSummaryAndAHint() async throws {
        let directory = try Self.example("retail-bank", editing: "services.yaml") { $0.replacingOccurrences(of: "scope: perAudience", with: "scope: global") }
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = await mcloudRun(["plan", "-f", directory.path, "--providers", Self.providers])
        #expect(run.exitCode == 1)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("error: no placement meets every rule\n"))
        #expect(run.stderr.contains("  payments-api: 0/9 clouds fit: 9 residency (152-FZ, GDPR)\n"))
        #expect(run.stderr.contains("    hint: a global cell handling personal data of ru and eu can never satisfy both 152-FZ and GDPR: make payments-api perAudience\n"))
    }

    /// Issue 33, finding 3: the shop's orders database on a managed engine with a DR leg failover is to restore is
    /// refused with the two hints, each of which then plans.
    @Test(arguments: [("", false), ("  hosting: vm\n", false), ("", true)])
    func aDRLegFailoverCannotRestoreIsRefusedUntilTheManifestSaysHow(_ hosting: String, restoreManually: Bool) async throws {
        let directory = try Self.example("shop", editing: "databases.yaml") { text in
            #expect(text.contains(", restore: manual }"))
            let stated = restoreManually ? text : text.replacingOccurrences(of: ", restore: manual }", with: " }")
            return stated.replacingOccurrences(of: "  standbys: 1\n  backup:", with: "  standbys: 1\n\(hosting)  backup:")
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = await mcloudRun(["plan", "--placement-only", "-f", directory.path, "--providers", Self.providers])
        guard hosting.isEmpty, !restoreManually else {
            #expect(run.exitCode == 0, "\(run.stderr)")
            return
        }
        #expect(run.exitCode == 1)
        #expect(run.stderr == """
            error: no placement meets every rule
              shop-db: its DR leg cannot be restored: the primary on gcore-lux would be the cloud's managed postgresql (hosting: any)
                hint: set hosting: vm, so failover can restore the primary from its DR leg
                hint: set disasterRecovery.restore: manual to keep the managed engine and restore it by hand

            """)
    }

    /// A what-if previews a failover: a cell whose primary would move onto a managed engine, with a leg failover is to
    /// restore from, is warned about (Fixtures/restore), though the what-if itself succeeds.
    @Test func aWhatIfWarnsWhereAFailoverCouldNotRestore() async {
        let run = await mcloudRun(["plan", "--lose", "ru-vm", "-f", "\(fixtures)/restore/Manifests", "--providers", "\(fixtures)/restore/Providers"])
        #expect(run.exitCode == 0)
        #expect(run.stdout.contains("  ledger-db  Database  primary ru-vm, backup ru-leg  primary ru-managed, backup ru-leg "))
        #expect(run.stderr == "warning: without ru-vm, ledger-db: its DR leg cannot be restored: the primary on ru-managed would be the cloud's managed postgresql (hosting: any); a failover would refuse it\n")
    }

}
