import Foundation
import MCloudCore
import MCloudEngine
import MCloudProvider
@testable import MCloudViews
import Testing

@Suite struct SavedPlanTests {
    @Test func aSavedPlanReadsBackToTheSameDocument() async throws {
        let document = try ViewFixtures.shopDocument()
        let bytes = Array((document.json.serialized() + "\n").utf8)
        let read = try PlanDocument.parse(bytes, file: "plan.json")
        #expect(read.json.serialized() == document.json.serialized())
        #expect(read.deployment?.changes.map(\.after?.dependencies) == document.deployment?.changes.map(\.after?.dependencies))
    }

    @Test func showPrintsWhatPlanPrintedPlacementIncluded() throws {
        let document = try ViewFixtures.shopDocument()
        let read = try PlanDocument.parse(Array(document.json.serialized().utf8), file: "plan.json")
        let printed = PlanView.render(document, explain: false, color: false)
        #expect(printed.hasPrefix("Placement of shop ("))
        #expect(PlanView.render(read, explain: false, color: false) == printed)
    }

    @Test(arguments: [
        ("{", "not a saved plan"),
        (#"{"format_version": "9.0"}"#, "plan format 9.0"),
        (#"{"format_version": "1.0", "operation": "apply", "application": "a", "state": {"serial": 0}, "input_digest": "x", "resource_changes": [{"address": "a"}]}"#, "resource_changes[0] needs"),
        (#"{"format_version": "1.0", "operation": "apply", "application": "a", "state": {"serial": 0}, "input_digest": "x", "resource_changes": [], "placement": {"cells": {"web": {"kind": "Pod"}}}}"#, "placement.cells.web.kind"),
        (#"{"format_version": "1.0", "operation": "apply", "application": "a", "state": {"serial": 0}, "input_digest": "x", "resource_changes": [], "connections": [{"name": "db.a.svc"}]}"#, "connections[0] is not a connection"),
        (#"{"format_version": "1.0", "operation": "apply", "application": "a", "state": {"serial": 0}, "input_digest": "x", "resource_changes": [], "placement": {"cells": {"db": {"kind": "Database", "primary": "c", "recovery": {"inCloud": {"rpoSeconds": "0", "how": "x"}}}}}}"#, "placement.cells.db.recovery.inCloud needs"),
    ])
    func aDamagedPlanFileIsRefusedWithItsProblem(_ text: String, _ message: String) {
        #expect(throws: PlanDocument.Failure.self) { try PlanDocument.parse(Array(text.utf8), file: "plan.json") }
        do { _ = try PlanDocument.parse(Array(text.utf8), file: "plan.json") } catch { #expect(error.description.contains(message), "\(error)") }
    }

    @Test func secretValuesNeverReachThePlanOrTheState() throws {
        let body: JSONValue = .object([
            ("kind", .string("Deployment")),
            ("env", .array([
                .object([("name", .string("DB_PASSWORD")), ("value", .string("hunter2"))]),
                .object([("name", .string("LOG_LEVEL")), ("value", .string("info"))]),
            ])),
        ])
        let change = ResourceChange(
            address: "a", provider: "memory", cloud: "lab", type: "Deployment", action: .create, reason: "",
            before: nil, after: DesiredResource(address: "a", provider: "memory", cloud: "lab", type: "Deployment", body: body, dependencies: []),
            recorded: nil
        )
        let json = PlanDocument.json(change).serialized()
        #expect(!json.contains("hunter2") && json.contains("info"))
        let state = ResourceState(address: "a", provider: "memory", cloud: "lab", providerID: "1", attributes: Dictionary(body.objectPairs, uniquingKeysWith: { a, _ in a }))
        #expect(!state.json.serialized().contains("hunter2"))
    }
}
