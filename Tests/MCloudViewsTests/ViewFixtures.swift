import Foundation
import MCloudCore
import MCloudEngine
import MCloudManifest
import MCloudPlanner
import MCloudProvider
import MCloudRender
import MCloudViews

/// Plan documents made the way `mcloud plan` makes them, without a cloud: the shop example placed and rendered, its
/// resources diffed against a state (without refresh, so the state stands for the clouds).
enum ViewFixtures {
    static let root = String(#filePath.split(separator: "/Tests/")[0])

    static func shop() throws -> (model: Model, plan: PlacementPlan) {
        let set = ManifestLoader.load(paths: ["\(root)/Manifests/shop"], providers: "\(root)/Providers")
        guard let model = set.model, case .success(let plan) = Planner.plan(model) else { throw Failure(message: "the shop example does not plan") }
        return (model, plan)
    }

    /// Every resource to create but one, recorded with other replicas (an update with a field diff), and a resource
    /// the manifests no longer have (a delete), so each part of the document has something in it.
    static func shopDocument() throws -> PlanDocument {
        let (model, placement) = try shop()
        let desired = DesiredResources.from(Rendering(model: model, placement: Placement(placement)))
        guard let deployment = desired.first(where: { $0.type == .deployment }) else { throw Failure(message: "the shop example renders no Deployment") }
        var scaled = Dictionary(deployment.body.objectPairs, uniquingKeysWith: { first, _ in first })
        scaled["spec"] = ResourceBody.setting(["replicas"], to: .int(9), in: scaled["spec"] ?? .object([]))
        let recorded = [
            ResourceState(address: deployment.address, provider: deployment.provider, cloud: deployment.cloud, providerID: "uid-1", attributes: scaled),
            ResourceState(
                address: "kubernetes.\(deployment.cloud).v1.ConfigMap.shop.gone", provider: .kubernetes, cloud: deployment.cloud, providerID: "uid-2",
                attributes: ["apiVersion": .string("v1"), "kind": .string("ConfigMap")]
            ),
        ]
        let state = State(lineage: "0b7f3c1e-2d4a-4c5b-9e8f-1a2b3c4d5e6f", serial: 4, resources: recorded)
        let changes = ChangeSet.changes(desired: desired, state: state, observed: nil) { _, _ in [] }
        let plan = DeploymentPlan(
            operation: .apply, application: model.application.name, changes: changes, moves: [], state: .init(state), inputDigest: "sha256:0",
            refreshed: false
        )
        // The state's record of the last apply: the same placement with 100 EUR a month more on another cloud.
        let report = PlacementReport(placement)
        var lastApplied = report.applied.cost
        lastApplied.monthly += 100
        lastApplied.byCloud["vk-msk"] = 100
        let cost = CostDiff(recorded: lastApplied, after: report.cost, currency: model.application.currency, rate: model.application.rate(for:))
        let policy = PolicyReport(verdicts: [
            .init(
                policy: "guardrails", index: 0, rule: "maxMonthlyCost", level: .advisory, source: SourceLocation(file: "a:b/policy.yaml", line: 6, column: 7),
                passed: false, message: "the monthly cost after this plan is above the limit", offenders: [.init(name: "vk-msk", detail: "100.00 EUR a month")]
            ),
            .init(
                policy: "guardrails", index: 1, rule: "denyMove", level: .mandatory, source: SourceLocation(file: "a:b/policy.yaml", line: 7, column: 7),
                passed: true, message: "no cell leaves vk-msk", offenders: []
            ),
        ])
        return PlanDocument(deployment: plan, placement: report, cost: cost, policy: policy)
    }

    struct Failure: Error {
        var message: String
    }
}
