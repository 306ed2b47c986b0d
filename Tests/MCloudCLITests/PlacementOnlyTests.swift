import Foundation
import MCloudCore
import MCloudSynthetic
import MCloudTestSupport
import Testing

/// `plan --placement-only`, and the plan that becomes one by itself on a catalog without endpoints: the placement,
/// cost, bound and reasons, with no state, no cloud and no credentials read.
@Suite struct PlacementOnlyTests {
    static let providers = "\(repositoryRoot)/Providers"

    /// A generated instance in a temporary folder: a catalog of price lists, none with endpoints.
    static func generated(_ size: SyntheticInstance.Size) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-placement-only-\(UUID().uuidString)").path
        try SyntheticInstance(size: size, seed: 3).write(to: directory)
        return directory
    }

    /// The repository's catalog with every `endpoints:` block taken out: the same clouds, as price lists only.
    static func catalogWithoutEndpoints() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-price-lists-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: providers) where name.hasSuffix(".yaml") {
            var kept: [Substring] = []
            var inEndpoints = false
            for line in try String(contentsOfFile: "\(providers)/\(name)", encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("  endpoints:") { inEndpoints = true; continue }
                if inEndpoints, line.hasPrefix("    ") { continue }
                inEndpoints = false
                kept.append(line)
            }
            try kept.joined(separator: "\n").write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return directory.path
    }

    static func json(_ run: Run) throws -> JSONValue { try JSONParser.parse(Array(run.stdout.utf8)) }

    @Test(arguments: [SyntheticInstance.Size(clouds: 8, services: 20, databases: 5), SyntheticInstance.Size(clouds: 16, services: 50, databases: 10)])
    func aCatalogWithoutEndpointsAndNoStateGivesThePlacementWithANote(_ size: SyntheticInstance.Size) async throws {
        let directory = try Self.generated(size)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments = ["plan", "-f", "\(directory)/Manifests", "--providers", "\(directory)/Providers", "--state", PlanCommandTests.noState]
        let run = await mcloudRun(arguments + ["--json"])
        #expect(run.exitCode == 0, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("note: placement only: clouds "))
        #expect(run.stderr.contains("have no endpoints in the catalog and there is no state"))
        let document = try Self.json(run)
        #expect(document["operation"]?.stringValue == "placement")
        #expect(document["resource_changes"] == nil && document["state"] == nil)
        #expect(document["placement"]?["cells"]?.objectPairs.count == 4 * (size.services + size.databases))
        #expect(document["explanations"] == nil, "every reason comes with --explain")
        #expect(document["considered"]?.objectPairs.count == 4 * (size.services + size.databases))
        #expect((document["placement"]?["cost"]?["lowerBound"]?.doubleValue ?? 0) > 0)

        let human = await mcloudRun(arguments)
        #expect(human.exitCode == 0)
        #expect(human.stdout.hasPrefix("Placement of synthetic ("))
        #expect(human.stdout.hasSuffix("no resource changes were planned (give those clouds endpoints to plan them).\n"))
        let asked = await mcloudRun(["plan", "--placement-only", "--json", "-f", "\(directory)/Manifests", "--providers", "\(directory)/Providers"])
        #expect(try Self.json(asked)["placement"] == document["placement"])
    }

    /// At 200 clouds `plan --json` grows with the cells, not with cells times clouds: per cell the placement, the
    /// runner-up and the rejected clouds counted by filter, which agree with the reasons `--explain` adds; and
    /// `explain CELL` still names every one of the 200 clouds.
    @Test func theJSONOfA200CloudInstanceStaysWithinAFixedSizePerCellAndExplainNamesEveryCloud() async throws {
        let directory = try Self.generated(SyntheticInstance.Size(clouds: 200, services: 10, databases: 3))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let inputs = ["-f", "\(directory)/Manifests", "--providers", "\(directory)/Providers"]
        let brief = await mcloudRun(["plan", "--placement-only", "--json"] + inputs)
        #expect(brief.exitCode == 0, "\(brief.stderr)")
        let document = try Self.json(brief)
        let cells = (document["placement"]?["cells"]?.objectPairs ?? []).map(\.0)
        #expect(cells.count == 4 * 13)
        #expect(brief.stdout.utf8.count <= Self.bytesPerCell * cells.count, "\(brief.stdout.utf8.count / max(1, cells.count)) bytes a cell")
        #expect(document["explanations"] == nil)
        let full = try Self.json(await mcloudRun(["plan", "--placement-only", "--json", "--explain"] + inputs))
        for (cell, summary) in document["considered"]?.objectPairs ?? [] {
            var counts: [String: Int] = [:]
            for (_, reasons) in full["explanations"]?[cell]?.objectPairs ?? [] {
                let filters = Set(reasons.arrayItems.compactMap { $0.stringValue?.split(separator: ":").first.map(String.init) })
                for filter in filters { counts[filter, default: 0] += 1 }
            }
            #expect(summary["rejected"] == .object(counts.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) }), "\(cell)")
            #expect(summary["runnerUp"] == full["considered"]?[cell]?["runnerUp"] && summary["chosen"] == full["considered"]?[cell]?["chosen"], "\(cell)")
        }
        let cell = try #require(cells.first)
        let considered = (full["considered"]?[cell]?["clouds"]?.arrayItems ?? []).compactMap { $0["cloud"]?.stringValue }
        let clouds = Set(considered + (full["explanations"]?[cell]?.objectPairs ?? []).map(\.0))
        #expect(clouds.count == 200)
        let explained = await mcloudRun(["explain", cell] + inputs)
        #expect(explained.exitCode == 0)
        let words = Set(explained.stdout.split(whereSeparator: { $0.isWhitespace || $0 == ":" || $0 == "," }).map(String.init))
        #expect(clouds.subtracting(words).isEmpty, "not in explain \(cell): \(clouds.subtracting(words).sorted().prefix(5))")
    }

    /// The most a cell adds to `plan --json` (its placement, why, warnings, runner-up and counts): 730 bytes on the
    /// generated 200-cloud instance, where `--explain` adds 64 KB a cell.
    static let bytesPerCell = 1_500

    /// The placement does not depend on endpoints: planned from the catalog, from the same catalog as price lists,
    /// and with --placement-only, every example gets the same `placement` (and explanations and considered clouds).
    @Test(arguments: ["retail-bank", "shop", "telemed"])
    func thePlacementIsTheSameWithAndWithoutEndpoints(_ application: String) async throws {
        let priceLists = try Self.catalogWithoutEndpoints()
        defer { try? FileManager.default.removeItem(atPath: priceLists) }
        let manifests = "\(repositoryRoot)/Manifests/\(application)"
        let deployment = try Self.json(await mcloudRun(["plan", "--json", "--explain", "-f", manifests, "--providers", Self.providers, "--state", PlanCommandTests.noState]))
        // A deployment plan also warns on cells about what it would make (docs/security.md, H2 and M6), and every plan
        // on edges across a border: warnings, not placement.
        let planned = Self.withoutCellWarnings(deployment)
        let asked = Self.withoutCellWarnings(try Self.json(await mcloudRun(["plan", "--json", "--explain", "--placement-only", "-f", manifests, "--providers", Self.providers])))
        let withoutEndpoints = Self.withoutCellWarnings(
            try Self.json(await mcloudRun(["plan", "--json", "--explain", "-f", manifests, "--providers", priceLists, "--state", PlanCommandTests.noState]))
        )
        #expect(planned["operation"]?.stringValue == "apply")
        #expect(asked["operation"]?.stringValue == "placement" && withoutEndpoints["operation"]?.stringValue == "placement")
        for key in ["placement", "explanations", "considered"] {
            #expect(planned[key] != nil)
            #expect(asked[key] == planned[key], "\(key) differs with --placement-only")
            #expect(withoutEndpoints[key] == planned[key], "\(key) differs without endpoints")
        }
    }

    /// The document with no `warnings` in its placement's cells.
    static func withoutCellWarnings(_ document: JSONValue) -> JSONValue {
        func stripped(_ value: JSONValue, _ path: [String]) -> JSONValue {
            guard case .object(let pairs) = value else { return value }
            if path.count == 3, path.prefix(2) == ["placement", "cells"] { return .object(pairs.filter { $0.0 != "warnings" }) }
            return .object(pairs.map { ($0.0, path.count < 3 ? stripped($0.1, path + [$0.0]) : $0.1) })
        }
        return stripped(document, [])
    }

    /// Asking for what only a deployment plan has keeps the error, with a hint instead of a silent placement.
    @Test func outAndDetailedExitcodeOnACatalogWithoutEndpointsFailWithAHint() async throws {
        let priceLists = try Self.catalogWithoutEndpoints()
        defer { try? FileManager.default.removeItem(atPath: priceLists) }
        let run = await mcloudRun([
            "plan", "--detailed-exitcode", "-f", "\(repositoryRoot)/Manifests/shop", "--providers", priceLists, "--state", PlanCommandTests.noState,
        ])
        #expect(run.exitCode == 1)
        #expect(run.stderr.contains("error: no provider can handle some resources"))
        #expect(run.stderr.contains("have no endpoints in the catalog; 'mcloud plan --placement-only' shows where everything would run"))
    }

    @Test(arguments: ["--state=file:///tmp/x.json", "--target=kubernetes", "--detailed-exitcode", "--no-refresh"])
    func placementOnlyRefusesWhatNeedsTheStateOrTheClouds(_ option: String) async {
        let run = await mcloudRun(["plan", "--placement-only", option])
        #expect(run.exitCode == 1)
        #expect(run.stderr.hasPrefix("error: --placement-only reads no state and plans no resource changes, so --"))
    }

    /// The real binary in a folder whose default state file is not JSON: a plan must read it and fails; a
    /// placement-only plan never opens it.
    @Test func placementOnlyNeverReadsTheState() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-broken-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".mcloud"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not a state".utf8).write(to: folder.appendingPathComponent(".mcloud/state.json"))
        let arguments = ["plan", "-f", "\(repositoryRoot)/Manifests/shop", "--providers", Self.providers]
        let full = try await runBinary(arguments, in: folder.path)
        #expect(full.exitCode == 1 && full.stderr.contains("state"), "\(full.stderr)")
        let placement = try await runBinary(arguments + ["--placement-only"], in: folder.path)
        #expect(placement.exitCode == 0, "\(placement.stderr)")
        #expect(placement.stdout.contains("Placement only: --placement-only reads no state and no cloud and needs no credentials"))
    }

    @Test func aSavedPlacementOnlyPlanShowsAsPlannedAndIsNotApplied() async throws {
        let file = NSTemporaryDirectory() + "mcloud-placement-\(UUID().uuidString).plan"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let planned = await mcloudRun(["plan", "--placement-only", "-f", "\(repositoryRoot)/Manifests/shop", "--providers", Self.providers, "--out", file])
        #expect(planned.exitCode == 0)
        let saved = "\nSaved the plan to \(file). Show it with: mcloud show \(file); draw it with: mcloud report --plan \(file) --out report.html\n"
        #expect(planned.stdout.hasSuffix(saved))
        let shown = await mcloudRun(["show", file])
        #expect(shown.exitCode == 0)
        #expect(shown.stdout + saved == planned.stdout)
        let applied = await mcloudRun(["apply", file, "-f", "\(repositoryRoot)/Manifests/shop", "--providers", Self.providers, "--state", PlanCommandTests.noState])
        #expect(applied.exitCode == 1)
        #expect(applied.stderr == "error: \(file) is a placement-only plan, which changes nothing; plan without --placement-only (the clouds need endpoints) and apply that\n")
    }
}

/// Runs the built `mcloud` binary in `directory`, off the cooperative threads.
func runBinary(_ arguments: [String], in directory: String) async throws -> Run {
    let binary = try #require(Bundle.main.executableURL).deletingLastPathComponent().appendingPathComponent("mcloud")
    try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the mcloud product first")
    let command = try await Command.run(binary.path, arguments, directory: directory)
    return Run(exitCode: command.exitCode, stdout: command.stdout, stderr: command.stderr)
}
