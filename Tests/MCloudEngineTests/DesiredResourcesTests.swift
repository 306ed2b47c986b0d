import Foundation
import MCloudCore
@testable import MCloudEngine
import MCloudManifest
import MCloudPlanner
import MCloudProvider
import MCloudRender
import Testing

/// The desired resources rendering gives the engine for a whole example, and the order the engine draws from them.
@Suite struct DesiredResourcesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static func retailBank() throws -> [DesiredResource] {
        let set = ManifestLoader.load(paths: ["\(root)/Manifests/retail-bank"], providers: "\(root)/Providers")
        let model = try #require(set.model)
        guard case .success(let plan) = Planner.plan(model) else { throw EngineError("retail-bank has no placement") }
        return DesiredResources.from(Rendering(model: model, placement: Placement(plan)))
    }

    @Test func retailBankResourcesDependOnWhatTheyName() throws {
        let resources = try Self.retailBank()
        let byAddress = Dictionary(uniqueKeysWithValues: resources.map { ($0.address, $0) })
        for resource in resources where resource.provider == "kubernetes" && resource.type != "Namespace" {
            #expect(resource.dependencies.contains { $0.rawValue.contains(".v1.Namespace.") }, "\(resource.address)")
        }
        // A slice is filled with the address of what it names, so it comes after it; the ConfigMap's name needs nothing.
        let slices = resources.filter { $0.type == .endpointSlice }
        #expect(!slices.isEmpty)
        for slice in slices {
            let sources = ResourceBody(slice.body).endpointSources
            #expect(!sources.isEmpty && sources.allSatisfy { byAddress[$0] != nil && slice.dependencies.contains($0) }, "\(slice.address)")
        }
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
}
