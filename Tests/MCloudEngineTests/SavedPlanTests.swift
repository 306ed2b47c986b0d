import Foundation
import MCloudCore
@testable import MCloudEngine
import MCloudManifest
import MCloudPlanner
import MCloudProvider
import MCloudRender
import Testing

@Suite struct SavedPlanTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static func retailBank() throws -> [DesiredResource] {
        let set = ManifestLoader.load(paths: ["\(root)/Manifests/retail-bank"], providers: "\(root)/Providers")
        let model = try #require(set.model)
        guard case .success(let plan) = Planner.plan(model) else { throw EngineError("retail-bank has no placement") }
        return DesiredResources.from(Rendering(model: model, placement: Placement(plan)))
    }

    @Test func aSavedPlanReadsBackToTheSameDocument() async throws {
        let provider = MemoryProvider()
        let plan = try await ApplierTests.plan(provider)
        let bytes = Array((plan.document.serialized() + "\n").utf8)
        let read = try SavedPlan.parse(bytes, file: "plan.json")
        #expect(read.document.serialized() == plan.document.serialized())
        #expect(read.changes.map(\.after?.dependencies) == plan.changes.map(\.after?.dependencies))
    }

    @Test(arguments: [
        ("{", "not a saved plan"),
        (#"{"format_version": "9.0"}"#, "plan format 9.0"),
        (#"{"format_version": "1.0", "operation": "apply", "application": "a", "state": {"serial": 0}, "input_digest": "x", "resource_changes": [{"address": "a"}]}"#, "resource_changes[0] needs"),
    ])
    func aDamagedPlanFileIsRefusedWithItsProblem(_ text: String, _ message: String) {
        #expect(throws: SavedPlan.Failure.self) { try SavedPlan.parse(Array(text.utf8), file: "plan.json") }
        do { _ = try SavedPlan.parse(Array(text.utf8), file: "plan.json") } catch { #expect(error.description.contains(message), "\(error)") }
    }

    @Test func retailBankResourcesDependOnWhatTheyName() throws {
        let resources = try Self.retailBank()
        let byAddress = Dictionary(uniqueKeysWithValues: resources.map { ($0.address, $0) })
        for resource in resources where resource.provider == "kubernetes" && resource.type != "Namespace" {
            #expect(resource.dependencies.contains { $0.rawValue.contains(".v1.Namespace.") }, "\(resource.address)")
        }
        let endpoints = try #require(resources.first { $0.type == "ConfigMap" && $0.address.rawValue.hasSuffix("-endpoints") })
        #expect(endpoints.dependencies.contains { byAddress[$0]?.provider != "kubernetes" }, "\(endpoints.dependencies)")
        let server = try #require(resources.first { $0.type == "DatabaseServer" })
        #expect(server.dependencies.contains { byAddress[$0]?.type == "Volume" } && server.dependencies.contains { byAddress[$0]?.type == "SecurityGroup" })
        _ = try ApplyGraph(resources.map {
            ResourceChange(address: $0.address, provider: $0.provider, cloud: $0.cloud, type: $0.type, action: .create, reason: "", before: nil, after: $0, recorded: nil)
        })
    }

    @Test func theSameInputsGiveByteIdenticalPlans() async throws {
        let first = try Self.retailBank()
        let second = try Self.retailBank()
        #expect(first == second)
    }

    @Test func secretValuesNeverReachThePlanOrTheState() throws {
        let body: JSONValue = .object([
            ("kind", "Deployment"),
            ("env", .array([.object([("name", "DB_PASSWORD"), ("value", "hunter2")]), .object([("name", "LOG_LEVEL"), ("value", "info")])])),
        ])
        let change = ResourceChange(
            address: "a", provider: "memory", cloud: "lab", type: "Deployment", action: .create, reason: "",
            before: nil, after: EngineFixtures.desired("a", body), recorded: nil
        )
        let json = DeploymentPlan.json(change).serialized()
        #expect(!json.contains("hunter2") && json.contains("info"))
        let state = ResourceState(address: "a", provider: "memory", cloud: "lab", providerID: "1", attributes: Dictionary(body.objectPairs, uniquingKeysWith: { a, _ in a }))
        #expect(!state.json.serialized().contains("hunter2"))
    }
}
