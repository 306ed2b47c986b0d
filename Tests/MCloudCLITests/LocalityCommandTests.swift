import Foundation
import MCloudCore
import Testing

/// The telemed example with `maxLatencyMs: 20` from scheduling to scheduling-db, which without it runs 62 ms away in
/// Almaty (its DR leg restored by hand, as sel-msk's managed engine is where it lands): `explain` says why the other clouds were left, and the plan's JSON is the same on every run.
@Suite struct LocalityCommandTests {
    static func telemed(limit: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-locality-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let source = URL(fileURLWithPath: "\(repositoryRoot)/Manifests/telemed")
        for file in try FileManager.default.contentsOfDirectory(atPath: source.path) where file.hasSuffix(".yaml") {
            var text = try String(contentsOf: source.appendingPathComponent(file), encoding: .utf8)
            if file == "services.yaml" {
                let edge = "- { name: scheduling-db, trafficGiBMonth: 80 }"
                #expect(text.components(separatedBy: edge).count == 2)
                text = text.replacingOccurrences(of: edge, with: "- { name: scheduling-db, trafficGiBMonth: 80, maxLatencyMs: \(limit) }")
            }
            if file == "databases.yaml" {
                // Near scheduling the primary is sel-msk's managed engine, which failover cannot restore.
                let leg = "disasterRecovery: { differentVendor: true, changeGiBDay: 1 }"
                #expect(text.components(separatedBy: leg).count == 2)
                text = text.replacingOccurrences(of: leg, with: "disasterRecovery: { differentVendor: true, changeGiBDay: 1, restore: manual }")
            }
            try text.write(to: directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        return directory
    }

    @Test func explainNamesTheRuleThatKeptACloudOut() async throws {
        let directory = try Self.telemed(limit: "20")
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = await mcloudRun(["explain", "scheduling-db@kz", "-f", directory.path, "--providers", PlanCommandTests.providers])
        #expect(run.exitCode == 0, "\(run.stderr)")
        #expect(run.stdout.contains("  placement: primary sel-msk, backup ps-ala\n"), "\(run.stdout)")
        #expect(run.stdout.contains("    aws-fra: locality: scheduling@kz and scheduling-db@kz are kept together on cloudru-msk, sel-msk, sel-spb, vk-msk, within 20 ms of each other (dependsOn scheduling-db)\n"), "\(run.stdout)")
    }

    @Test func thePlanMeetsTheRuleWithTheSameJSONEveryTime() async throws {
        let directory = try Self.telemed(limit: "20")
        defer { try? FileManager.default.removeItem(at: directory) }
        let arguments = ["plan", "--placement-only", "--json", "-f", directory.path, "--providers", PlanCommandTests.providers]
        let first = await mcloudRun(arguments)
        #expect(first.exitCode == 0, "\(first.stderr)")
        #expect(await mcloudRun(arguments).stdout == first.stdout)
        let cells = try #require(try JSONParser.parse(Array(first.stdout.utf8)).value(at: ["placement", "cells"]))
        let primary = cells.value(at: ["scheduling-db@kz", "primary"])?.stringValue
        let replicas = cells.value(at: ["scheduling@kz", "replicas"])?.objectPairs.map(\.0) ?? []
        // Within 20 ms of the primary by the bundled catalog (docs/pricing.md): the Moscow clouds and St Petersburg.
        #expect(primary == "sel-msk")
        #expect(!replicas.isEmpty && replicas.allSatisfy { ["sel-msk", "sel-spb", "vk-msk", "cloudru-msk"].contains($0) }, "\(replicas)")
    }

    @Test func aRuleNoPlacementMeetsFailsThePlanNamingTheEdge() async throws {
        // scheduling needs two clouds, and no two clouds of the catalog are 1 ms apart.
        let directory = try Self.telemed(limit: "1")
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = await mcloudRun(["plan", "--placement-only", "-f", directory.path, "--providers", PlanCommandTests.providers])
        #expect(run.exitCode == 1)
        #expect(run.stderr.contains("scheduling@kz: no placement found within scheduling@kz -> scheduling-db@kz (maxLatencyMs 1): "), "\(run.stderr)")
    }
}
