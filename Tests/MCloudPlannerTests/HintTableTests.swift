import Foundation
import MCloudCore
import MCloudManifest
import MCloudPlanner
import Testing

/// The hint table of docs/planner.md: for each failing fixture, the exact hints printed for the cell, and for each hint
/// an edit of the manifests written here by hand, as a user would carry it out. Applied, every edit places the cell;
/// the hints that would not (the wrong ones of issue 33, finding 5) are never printed.
@Suite struct HintTableTests {
    typealias Edit = @Sendable (inout [String], inout Set<String>) -> Void

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var documents: [String]
        var lost: Set<String> = []
        var cell: String
        /// Every hint printed for the cell, in order, each with the edit that carries it out.
        var hints: [(text: String, edit: Edit)]

        var testDescription: String { name }
    }

    typealias Rule = PlannerRuleTests

    static func database(_ name: String = "db", scope: String = "perAudience", data: String = "[personal]", extra: String = "") -> String {
        """
        apiVersion: mcloud/v1
        kind: Database
        metadata: { name: \(name) }
        spec:
          engine: postgresql
          version: "16"
          scope: \(scope)
          size: { vcpu: 2, memoryGiB: 8, storageGiB: 100 }
          data: \(data)
        \(extra)
        """
    }

    static let disasterRecovery = """
          backup:
            schedule: "0 2 * * *"
            retentionDays: 7
            disasterRecovery: { differentVendor: true }
        """

    /// Replaces `text` with `replacement` in every document.
    static func replacing(_ text: String, with replacement: String) -> Edit {
        { documents, _ in documents = documents.map { $0.replacingOccurrences(of: text, with: replacement) } }
    }

    static func adding(_ document: String) -> Edit {
        { documents, _ in documents.append(document) }
    }

    static func finding(_ clouds: Set<String>) -> Edit {
        { _, lost in lost.subtract(clouds) }
    }

    static let cases: [Case] = [
        Case(
            name: "a cell whose audience's limit no cloud meets: raise it, from what to what",
            documents: [Rule.application(), Rule.cloud("eu", jurisdiction: "[DE, EU]"), Rule.cloud("far", latency: "{ ru: 90 }"), Rule.service("web", isPublic: true)],
            cell: "web@ru",
            hints: [(
                "raise audience ru's latencyMs from 50 to 90: the nearest cloud that meets every other rule is far at 90 ms",
                replacing("latencyMs: 50 }", with: "latencyMs: 90 }")
            )]
        ),
        Case(
            name: "a global public cell far from one audience or the other: per audience, never a limit already met",
            documents: [
                Rule.application(), Rule.cloud("ru-1", latency: "{ ru: 10, eu: 100 }"), Rule.cloud("eu-1", jurisdiction: "[EU]", latency: "{ ru: 100, eu: 10 }"),
                Rule.service("web", scope: "global", data: "[]", isPublic: true),
            ],
            cell: "web",
            hints: [(
                "make web perAudience: a global public cell needs one cloud within every audience's latencyMs, a cell per audience only its own",
                replacing("scope: global", with: "scope: perAudience")
            )]
        ),
        Case(
            name: "no cloud lists the audience's latency",
            documents: [Rule.application(), Rule.cloud("a", latency: "{ eu: 40 }"), Rule.service("web", data: "[]", isPublic: true)],
            cell: "web@ru",
            hints: [(
                "no cloud that meets every other rule (a) lists latencyMs.ru, and no cloud of the catalog lists one: add the measured figure to the catalog, or drop audience ru's latencyMs",
                replacing("{ name: ru, jurisdiction: RU, latencyMs: 50 }", with: "{ name: ru, jurisdiction: RU }")
            )]
        ),
        Case(
            name: "a global cell under two laws that share no jurisdiction",
            documents: [Rule.application(), Rule.cloud("ru"), Rule.cloud("eu", jurisdiction: "[EU]"), Rule.service(scope: "global")],
            cell: "api",
            hints: [(
                "a global cell handling personal data of ru and eu can never satisfy both 152-FZ and [EU]: make api perAudience",
                replacing("scope: global", with: "scope: perAudience")
            )]
        ),
        Case(
            name: "no cloud is tagged with what the law allows: the tags that exist, by name",
            documents: [Rule.application(), Rule.cloud("eu-1", jurisdiction: "[DE, EU]"), database()],
            cell: "db@ru",
            hints: [(
                "no cloud that meets the other rules is where 152-FZ allows [RU]: they are tagged DE (eu-1), EU (eu-1); add a cloud in RU like eu-1",
                adding(Rule.cloud("ru-new"))
            )]
        ),
        Case(
            name: "spread that needs both keys relaxed gets the two together",
            documents: [
                Rule.application(availability: "{ minClouds: 2, maxShare: 0.5 }"), Rule.cloud("a"), Rule.cloud("b", jurisdiction: "[EU]"),
                Rule.service(replicas: 4),
            ],
            cell: "api@eu",
            hints: [(
                "lower minClouds to 1 and raise maxShare to 1.00 so 1 cloud can hold 4 replicas, or add clouds that meet every rule",
                replacing("availability: { minClouds: 2, maxShare: 0.5 }", with: "availability: { minClouds: 1, maxShare: 1 }")
            )]
        ),
        Case(
            name: "the DR leg's vendor rule with a second cloud of the same vendor",
            documents: [
                Rule.application(), Rule.cloud("ru-1", vendor: "v"), Rule.cloud("ru-2", vendor: "v"), Rule.cloud("eu-1", jurisdiction: "[EU]"),
                Rule.cloud("eu-2", jurisdiction: "[EU]"), database(extra: disasterRecovery),
            ],
            cell: "db@ru",
            hints: [
                (
                    "set differentVendor: false: no cloud of another vendor can take the backup leg under the same rules",
                    replacing("differentVendor: true", with: "differentVendor: false")
                ),
                (
                    "add a cloud with object storage of another vendor than v in [RU] beside ru-1: the backup leg needs a second cloud where the data may live",
                    adding(Rule.cloud("ru-3", vendor: "w"))
                ),
            ]
        ),
        Case(
            name: "the DR leg with a single cloud where the data may live: never differentVendor: false",
            documents: [
                Rule.application(), Rule.cloud("ru-1"), Rule.cloud("eu-1", jurisdiction: "[EU]"), Rule.cloud("eu-2", jurisdiction: "[EU]"),
                database(extra: disasterRecovery),
            ],
            cell: "db@ru",
            hints: [(
                "add a cloud with object storage of another vendor than ru-1 in [RU] beside ru-1: the backup leg needs a second cloud where the data may live",
                adding(Rule.cloud("ru-2"))
            )]
        ),
        Case(
            name: "a lost cloud while another passes the filters but cannot hold the cell alone",
            documents: [
                Rule.application(availability: "{ minClouds: 2, maxShare: 1 }"), Rule.cloud("ru-1"), Rule.cloud("ru-2"),
                Rule.cloud("eu-1", jurisdiction: "[EU]"), Rule.cloud("eu-2", jurisdiction: "[EU]"), Rule.service(),
            ],
            lost: ["ru-1"],
            cell: "api@ru",
            hints: [
                (
                    "it fits with the lost cloud ru-1; without, ru-2 passes the filters but cannot hold it alone: add a cloud where the cell may run under the same rules, or relax the rule that binds it",
                    finding(["ru-1"])
                ),
                ("lower minClouds to 1: only 1 cloud meets every other rule", replacing("minClouds: 2", with: "minClouds: 1")),
            ]
        ),
        Case(
            name: "a CDN whose audiences no one cloud's PoPs cover: the PoPs that exist",
            documents: [
                Rule.application(), Rule.cloud("eu-pops", cdn: "[EU]"), Rule.cloud("ru-pops", cdn: "[RU]"), Rule.service("web", data: "[]", isPublic: true),
                """
                apiVersion: mcloud/v1
                kind: CDN
                metadata: { name: static }
                spec:
                  origins: [web]
                  trafficGiBMonth: 1000
                """,
            ],
            cell: "static",
            hints: [(
                "no one CDN has PoPs in every audience's jurisdiction: none in RU (audience ru) on eu-pops (PoPs: EU on eu-pops; RU on ru-pops): set the CDN's audiences to [eu]",
                replacing("  origins: [web]", with: "  origins: [web]\n  audiences: [eu]")
            )]
        ),
        Case(
            name: "a hosting that rules out the only cloud the law allows",
            documents: [
                Rule.application(),
                Rule.cloud("ru-1").replacingOccurrences(of: "objectStorage: true }", with: "objectStorage: true, dbaas: [postgresql] }"),
                Rule.cloud("eu-1", jurisdiction: "[EU]"), database(extra: "  hosting: managed"),
            ],
            cell: "db@eu",
            hints: [("set hosting: any (hosting: managed rules out eu-1)", replacing("hosting: managed", with: "hosting: any"))]
        ),
        Case(
            name: "an engine version the VM image of the only cloud the law allows has no recipe for",
            documents: [
                Rule.application(), DeliverabilityTests.noble("ru-1"), Rule.cloud("eu-1", jurisdiction: "[EU]"),
                DeliverabilityTests.mongo.replacingOccurrences(of: "scope: global", with: "scope: perAudience\n  data: [personal]"),
            ],
            cell: "events@ru",
            hints: [
                (
                    #"set version: "8.0": ru-1's VM image ubuntu-24.04 has a mongodb recipe for it, none for 7.0"#,
                    replacing(#"version: "7.0""#, with: #"version: "8.0""#)
                ),
                (
                    "add a cloud like ru-1 that sells mongodb managed (offers.dbaas): no cloud that meets every other rule (ru-1) can run mongodb 7.0",
                    adding(DeliverabilityTests.noble("ru-2", dbaas: ", dbaas: [mongodb]"))
                ),
            ]
        ),
        Case(
            name: "a database no cloud has room for",
            documents: [
                Rule.application(), Rule.cloud("a", capacity: "{ vcpu: 1, memoryGiB: 64, storageGiB: 1000 }"),
                Rule.cloud("b", jurisdiction: "[EU]", vcpuHour: 0.02, capacity: "{ vcpu: 1, memoryGiB: 64, storageGiB: 1000 }"), database(scope: "global", data: "[]"),
            ],
            cell: "db",
            hints: [(
                "add 2 vCPU, 8 GiB memory, 100 GiB storage to a's capacity, which passes every rule for db; or lower its size or standbys",
                replacing("{ vcpu: 1, memoryGiB: 64, storageGiB: 1000 }\n  pricing: { currency: USD, vcpuHour: 0.01,", with: "{ vcpu: 3, memoryGiB: 72, storageGiB: 1100 }\n  pricing: { currency: USD, vcpuHour: 0.01,")
            )]
        ),
    ]

    static func place(_ documents: [String], lost: Set<String>) throws -> Result<PlacementPlan, PlacementFailure> {
        let set = ManifestLoader.load([ManifestLoader.Source(file: "test.yaml", bytes: Array(documents.joined(separator: "\n---\n").utf8))])
        #expect(!set.diagnostics.hasErrors, "\(set.diagnostics)")
        return Planner.plan(try #require(set.model), options: Planner.Options(lost: lost))
    }

    @Test(arguments: cases)
    func everyHintPrintedPlacesTheCellWhenApplied(_ table: Case) throws {
        guard case .failure(let failure) = try Self.place(table.documents, lost: table.lost) else {
            Issue.record("\(table.name): expected \(table.cell) not to be placed")
            return
        }
        let failed = try #require(failure.cells.first { $0.cell == table.cell }, "\(failure)")
        #expect(failed.hints == table.hints.map(\.text))
        let workload = table.cell.split(separator: "@")[0]
        for hint in table.hints {
            var documents = table.documents
            var lost = table.lost
            hint.edit(&documents, &lost)
            #expect(documents != table.documents || lost != table.lost, "the edit for \"\(hint.text)\" changed nothing")
            if case .failure(let after) = try Self.place(documents, lost: lost) {
                let mine = after.cells.filter { $0.cell == workload || $0.cell.hasPrefix("\(workload)@") }.map(\.cell)
                #expect(!mine.contains(table.cell) && (mine.isEmpty || table.cell.contains("@")), "after \"\(hint.text)\": \(after)")
            }
        }
    }
}
