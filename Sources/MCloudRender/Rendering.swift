public import MCloudCore
public import MCloudSecrets

/// Everything `mcloud render` writes, as objects: each cluster's Kubernetes objects and each cloud's infrastructure
/// resources, both sorted by cloud name, and the connections' Secrets, which are written only encrypted
/// (`sealedTree`). Same model and placement, same rendering.
public struct Rendering: Sendable {
    public var clusters: [(cloud: String, objects: [KubernetesObject])]
    public var infrastructure: [(cloud: String, resources: [InfrastructureResource])]
    /// Sorted by cloud and path. Not among `clusters`' objects: the tree holds them only encrypted, and `apply` writes
    /// them as desired resources with no value, which the Kubernetes provider derives (docs/connectivity.md, "Secrets
    /// of a connection").
    public var secrets: [ConnectionSecret]

    public init(model: Model, placement: Placement) {
        let topology = Topology(model: model, placement: placement)
        let clouds = ClusterRenderer.clouds(topology)
        let connections = Wiring(topology).connections
        let names = ConnectionNameBuilder.objects(connections, in: topology)
        let addressed = ConnectionNameBuilder.addressed(connections)
        let secrets = ConnectionSecretBuilder.secrets(connections, in: topology)
        self.secrets = secrets
        clusters = Parallel.map(clouds.count) {
            $0.map {
                (cloud: clouds[$0], objects: ClusterRenderer.objects(for: clouds[$0], in: topology, names: names[clouds[$0]] ?? [:], addressed: addressed, secrets: secrets))
            }
        }
        let resources = topology.databases.indices.flatMap { DatabaseInfrastructure($0, in: topology)?.resources ?? [] }
            + topology.cdns.map { CDNInfrastructure.resource($0.cdn, cloud: $0.cloud, in: topology) }
        infrastructure = Dictionary(grouping: resources, by: \.cloud).sorted { $0.key < $1.key }.map { (cloud: $0.key, resources: $0.value) }
    }

    /// The rendering with the bodies of `filled` (JSON, by resource address) in place of its objects' own: `render
    /// --state` gives the EndpointSlices and egress policies the addresses the last apply recorded.
    public func filling(_ filled: [String: JSONValue]) -> Rendering {
        var rendering = self
        rendering.clusters = clusters.map { cluster in
            (cloud: cluster.cloud, objects: cluster.objects.map { object in
                filled[object.address(cloud: cluster.cloud)].map { object.with(body: ObjectNode($0)) } ?? object
            })
        }
        return rendering
    }

    public var objectCount: Int { clusters.reduce(0) { $0 + $1.objects.count } }
    public var resourceCount: Int { infrastructure.reduce(0) { $0 + $1.resources.count } }

    /// The files: `clusters/<cloud>/kustomization.yaml` and one file per object, `infrastructure/<cloud>/` one file
    /// per resource; sorted by path. The Secrets' files are listed in their kustomization but only `sealedTree`
    /// writes them, encrypted.
    public var tree: RenderedTree {
        var pending: [(path: String, node: ObjectNode)] = []
        for (cloud, objects) in clusters {
            let kustomization = ClusterRenderer.kustomization(objects, secrets: secrets.filter { $0.cloud == cloud })
            pending.append((path: "clusters/\(cloud)/kustomization.yaml", node: kustomization))
            pending += objects.map { (path: "clusters/\(cloud)/\($0.path)", node: $0.body) }
        }
        for (cloud, resources) in infrastructure {
            pending += resources.map { (path: "infrastructure/\(cloud)/\($0.path)", node: $0.body) }
        }
        let nodes = pending  // the writers run concurrently and may only read
        let files = Parallel.map(nodes.count) { range in
            var writer = BlockYAMLWriter()
            return range.map { RenderedTree.File(path: nodes[$0].path, contents: writer.document(nodes[$0].node)) }
        }
        return RenderedTree(files: files.sorted { $0.path < $1.path })
    }

    /// `tree` and the bootstrap objects, sorted by path; the Secrets' files aside.
    public func tree(with bootstrap: Bootstrap) -> RenderedTree {
        RenderedTree(files: (tree.files + bootstrap.files).sorted { $0.path < $1.path })
    }

    /// Everything `render` writes but the marker: `tree(with:)` and each Secret as a SOPS document. `sealing` may be
    /// nil only when there is no Secret: the caller asks for the operator's identity just then.
    public func sealedTree(with bootstrap: Bootstrap, sealing: SecretSealing?) throws(SecretsError) -> RenderedTree {
        guard !secrets.isEmpty else { return tree(with: bootstrap) }
        guard let sealing else { throw .invalidInput(reason: "the connections' Secrets are written encrypted, and no age identity was given to derive them") }
        var files = tree(with: bootstrap).files
        for secret in secrets { files.append(try sealing.file(secret)) }
        return RenderedTree(files: files.sorted { $0.path < $1.path })
    }
}
