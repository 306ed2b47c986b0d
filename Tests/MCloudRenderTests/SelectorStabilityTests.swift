import MCloudCore
import MCloudPlanner
@testable import MCloudRender
import Testing

/// A Deployment's selector cannot change once created, and Services, budgets and policies must keep finding the same
/// pods: no selector may depend on what a new placement changes.
@Suite struct SelectorStabilityTests {
    /// Every selector of a rendering, by cluster, file and place in the object.
    static func selectors(_ rendering: Rendering) -> [String: String] {
        var selectors: [String: String] = [:]
        for (cloud, object) in rendering.allObjects {
            let key = "\(cloud)/\(object.path)"
            let spec = object.body["spec"]
            switch object.kind {
            case "Deployment":
                selectors[key + " selector"] = spec?["selector"]?.yaml
                selectors[key + " spread"] = spec?.at("template", "spec", "topologySpreadConstraints")?.yaml
            case "Service": selectors[key + " selector"] = spec?["selector"]?.yaml
            case "PodDisruptionBudget": selectors[key + " selector"] = spec?["selector"]?.yaml
            case "HorizontalPodAutoscaler": selectors[key + " target"] = spec?["scaleTargetRef"]?.yaml
            case "NetworkPolicy":
                selectors[key + " pods"] = spec?["podSelector"]?.yaml
                selectors[key + " peers"] = ((spec?["ingress"]?.items ?? []) + (spec?["egress"]?.items ?? []))
                    .compactMap { ($0["from"] ?? $0["to"])?.yaml }.joined(separator: "\n")
            default: break
            }
        }
        return selectors
    }

    /// The same clouds with other counts: one more replica on the first cloud of every service cell, one fewer on
    /// the last where it had two or more.
    static func rescaled(_ placement: Placement) -> Placement {
        var changed = placement
        for (cell, replicas) in placement.services {
            var counts = replicas
            counts[0].count += 1
            if counts.count > 1, counts[counts.count - 1].count > 1 { counts[counts.count - 1].count -= 1 }
            changed.services[cell] = counts
        }
        return changed
    }

    @Test(arguments: RenderFixtures.examples)
    func rerenderingAfterAReplicaChangeChangesNoSelector(_ name: String) throws {
        let (model, plan) = try RenderFixtures.example(name)
        let before = Rendering(model: model, placement: Placement(plan))
        let after = Rendering(model: model, placement: Self.rescaled(Placement(plan)))
        let deployments = { (rendering: Rendering) in rendering.allObjects.filter { $0.object.kind == "Deployment" }.map { $0.object.body.at("spec", "replicas")?.intValue } }
        #expect(deployments(before) != deployments(after), "the change must reach the Deployments")
        let old = Self.selectors(before)
        let new = Self.selectors(after)
        // Only a budget may come or go, with a cloud's count crossing two.
        let cameOrWent = Set(old.keys).symmetricDifference(new.keys).filter { !$0.contains(".poddisruptionbudget.yaml") }
        #expect(cameOrWent.isEmpty, "\(cameOrWent.sorted().prefix(5))")
        for (key, selector) in old where new[key] != nil {
            #expect(new[key] == selector, "\(key)")
        }
    }

    @Test(arguments: RenderFixtures.examples)
    func aCellHasTheSameSelectorInEveryCluster(_ name: String) throws {
        let (model, plan) = try RenderFixtures.example(name)
        let rendering = Rendering(model: model, placement: Placement(plan))
        let byCell = Dictionary(grouping: rendering.allObjects.filter { $0.object.kind == "Deployment" }) { "\($0.object.namespace)/\($0.object.name)" }
        #expect(byCell.values.contains { $0.count > 1 }, "some cell must run in two clusters")
        for (cell, deployments) in byCell {
            #expect(Set(deployments.map { $0.object.body.at("spec", "selector")?.yaml ?? "" }).count == 1, "\(cell)")
        }
    }

    /// Only the workload and the cell: not the cloud, the application, the manager or a workload label.
    @Test(arguments: RenderFixtures.examples)
    func aSelectorHoldsOnlyTheWorkloadAndTheCellAndMatchesItsPods(_ name: String) throws {
        let (model, plan) = try RenderFixtures.example(name)
        for (_, deployment) in Rendering(model: model, placement: Placement(plan)).allObjects where deployment.kind == "Deployment" {
            let selector = try #require(deployment.body.at("spec", "selector", "matchLabels"))
            #expect(selector.fields.map(\.0) == ["app.kubernetes.io/instance", "app.kubernetes.io/name"])
            let podLabels = try #require(deployment.body.at("spec", "template", "metadata", "labels"))
            for (key, value) in selector.fields {
                #expect(podLabels[key]?.stringValue == value.stringValue, "\(deployment.path): \(key)")
            }
        }
    }
}
