import Foundation
import MCloudCore
import MCloudEngine
import MCloudProvider
@testable import MCloudViews
import Testing

/// A refresh's warning on a resource (a DR leg whose backups stopped) lands on its cell: in the human plan, in the
/// JSON's placement and change, and back from a saved plan.
@Suite struct BackupWarningTests {
    static let warning = "backups stopped: the last success was at 2026-11-30T02:00:00Z; schedule \"0 2 * * *\" was due at 2026-12-01T02:00:00Z"

    static func document() throws -> PlanDocument {
        var document = try ViewFixtures.shopDocument()
        var deployment = try #require(document.deployment)
        let index = try #require(deployment.changes.firstIndex { $0.type == .backupBucket })
        deployment.changes[index].warnings = [warning]
        document.deployment = deployment
        document.placement = document.placement?.withWarnings(from: deployment.changes)
        return document
    }

    @Test func theWarningIsOnTheBucketsCellInTheHumanPlan() throws {
        let document = try Self.document()
        // The shop's services also carry the plan's own warnings on edges across a border (docs/planner.md, Locality).
        let cell = try #require(document.placement?.cells.first { $0.warnings.contains(Self.warning) })
        #expect(cell.name == "shop-db")
        #expect(cell.warnings == [Self.warning])
        let printed = PlanView.render(document, explain: false, color: false)
        #expect(printed.contains("Warnings\n"), "\(printed)")
        #expect(printed.contains("\n  ! shop-db: \(Self.warning)\n"), "\(printed)")
    }

    @Test func theWarningIsInTheJSONAndReadsBack() throws {
        let document = try Self.document()
        let json = document.json
        #expect(json.value(at: ["placement", "cells", "shop-db", "warnings"]) == .array([.string(Self.warning)]))
        let change = json["resource_changes"]?.arrayItems.first { $0["type"]?.stringValue == "BackupBucket" }
        #expect(change?["warnings"] == .array([.string(Self.warning)]))
        let read = try PlanDocument.parse(Array(json.serialized().utf8), file: "plan.json")
        #expect(read.json.serialized() == json.serialized())
        #expect(!PlanView.render(try ViewFixtures.shopDocument(), explain: false, color: false).contains("backups stopped"))
    }
}
