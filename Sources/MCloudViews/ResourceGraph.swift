public import MCloudProvider
import Foundation
import MCloudCore

/// The desired resources and their dependencies as Graphviz DOT: one cluster per cloud, an edge from each resource
/// to what it needs. Deterministic: sorted by address.
public enum ResourceGraph {
    public static func dot(application: String, resources: [DesiredResource]) -> String {
        var out = "digraph \"\(escape(application))\" {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n"
        let byCloud = Dictionary(grouping: resources, by: \.cloud)
        for (index, cloud) in byCloud.keys.sorted().enumerated() {
            out += "  subgraph cluster_\(index) {\n    label=\"\(escape(cloud))\";\n"
            for resource in (byCloud[cloud] ?? []).sorted(by: { $0.address < $1.address }) {
                out += "    \"\(escape(resource.address.rawValue))\" [label=\"\(escape(label(resource)))\"];\n"
            }
            out += "  }\n"
        }
        for resource in resources.sorted(by: { $0.address < $1.address }) {
            for dependency in resource.dependencies {
                out += "  \"\(escape(resource.address.rawValue))\" -> \"\(escape(dependency.rawValue))\";\n"
            }
        }
        return out + "}\n"
    }

    /// `Deployment\nretail-bank-ru/payments-api`: the kind, then the name within the cloud.
    private static func label(_ resource: DesiredResource) -> String {
        let name = resource.body.value(at: ["metadata", "name"])?.stringValue ?? resource.address.rawValue
        let namespace = resource.body.value(at: ["metadata", "namespace"])?.stringValue
        return "\(resource.type)\n\(namespace.map { "\($0)/" } ?? "")\(name)"
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}
