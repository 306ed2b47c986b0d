public import MCloudCore
import MCloudProvider

/// What tells Argo CD and Flux about the clusters of a rendering (docs/gitops.md, "Bootstrap"): an Argo CD
/// `ApplicationSet` whose list generator has one element per cluster folder, and a Flux `GitRepository` with one
/// `Kustomization` per cluster folder. Each cluster is named as the catalog says (`endpoints.kubernetes.server`,
/// `argocdCluster`, `fluxKubeConfigSecret`), so the objects are applied once, in a management cluster, and follow
/// the placement from then on. The shapes follow the upstream CRDs: Argo CD `argoproj.io/v1alpha1` (2.x and 3.x),
/// Flux `source.toolkit.fluxcd.io/v1` and `kustomize.toolkit.fluxcd.io/v1` (Flux 2.x).
public struct Bootstrap: Sendable {
    /// The Git repository the tree is committed to, as the GitOps tools read it.
    public struct Source: Sendable, Hashable {
        public var url: String
        public var branch: String
        /// The Secret in `flux-system` with the credentials Flux reads the repository with, for a private one.
        public var fluxSecret: String?

        public init(url: String, branch: String, fluxSecret: String? = nil) {
            self.url = url
            self.branch = branch
            self.fluxSecret = fluxSecret
        }

        public static let defaultBranch = "main"

        /// Why `url` cannot be read by both tools, or nil. Flux takes `http`, `https` and `ssh` URLs only
        /// (its CRD's pattern `^(http|https|ssh)://.*$`), so an scp-style `git@host:path` is refused with the form to use.
        public static func urlProblem(_ url: String) -> String? {
            if url.isEmpty || url.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F || $0 == "\"" }) {
                return "\"\(url)\" is not a repository URL"
            }
            for scheme in ["https://", "http://", "ssh://"] where url.hasPrefix(scheme) && url.count > scheme.count { return nil }
            if let at = url.firstIndex(of: "@"), let colon = url[at...].firstIndex(of: ":"), !url.contains("://") {
                let host = url[url.index(after: at)..<colon], path = url[url.index(after: colon)...]
                return "\"\(url)\" is an scp-style address, which Flux cannot read; write it as ssh://\(url[..<at])@\(host)/\(path)"
            }
            return "\"\(url)\" is not an https://, http:// or ssh:// URL"
        }

        /// A Kubernetes object name such as a Secret's (an RFC 1123 subdomain).
        public static func isSecretName(_ name: String) -> Bool {
            name.utf8.count <= 253 && name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
                let bytes = label.utf8
                func alphanumeric(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) }
                guard let first = bytes.first, let last = bytes.last, bytes.count <= 63 else { return false }
                return alphanumeric(first) && alphanumeric(last) && bytes.allSatisfy { alphanumeric($0) || $0 == UInt8(ascii: "-") }
            }
        }

        /// Why `branch` is not a branch name Git accepts (git-check-ref-format), or nil.
        public static func branchProblem(_ branch: String) -> String? {
            let forbidden: Set<Character> = [" ", "~", "^", ":", "?", "*", "[", "\\", "\t", "\n"]
            guard !branch.isEmpty, !branch.contains(where: forbidden.contains), !branch.contains(".."), !branch.contains("@{"),
                  !branch.hasPrefix("/"), !branch.hasSuffix("/"), !branch.hasSuffix("."), !branch.hasPrefix("-"), !branch.contains("//"),
                  !branch.hasSuffix(".lock"), branch != "@"
            else { return "\"\(branch)\" is not a Git branch name" }
            return nil
        }
    }

    /// How one cluster is named for each tool.
    public struct Cluster: Sendable, Hashable {
        public enum ArgoCDDestination: Sendable, Hashable {
            case server(String)
            case name(String)
        }

        /// The Secret in `flux-system` holding the cluster's kubeconfig, and its key (nil: Flux's default, `value`).
        public struct KubeConfig: Sendable, Hashable {
            public var secret: String
            public var key: String?
        }

        public var cloud: String
        public var argocd: ArgoCDDestination
        public var flux: KubeConfig
        /// Whether the cluster's folder holds SOPS-encrypted Secrets, which Flux decrypts with the age identity in the
        /// Secret `sops-age` of `flux-system` (docs/gitops.md, "Secrets").
        public var decrypts = false

        /// What the catalog says of `cloud`: Argo CD by `argocdCluster`, else by `server`, else by the cloud's own
        /// name (what `argocd cluster add CONTEXT --name CLOUD` registers); Flux by `fluxKubeConfigSecret`, else
        /// `<cloud>-kubeconfig` (the Cluster API convention).
        public init(cloud: String, endpoints: Cloud.Endpoints) {
            self.cloud = cloud
            if let name = endpoints.argocdCluster {
                argocd = .name(name)
            } else if let server = endpoints.kubernetesServer {
                argocd = .server(server)
            } else {
                argocd = .name(cloud)
            }
            flux = KubeConfig(secret: endpoints.fluxKubeConfigSecret ?? "\(cloud)-kubeconfig", key: endpoints.fluxKubeConfigKey)
        }
    }

    /// Argo CD reads Applications and ApplicationSets only in its own namespace, `argocd` by default.
    public static let argocdNamespace = "argocd"
    /// Flux's own namespace; a Kustomization's kubeconfig Secret must be in the same one.
    public static let fluxNamespace = "flux-system"
    /// The Secret in `flux-system` holding the age identity Flux decrypts a cluster's Secrets with (key `age.agekey`).
    public static let fluxDecryptionSecret = "sops-age"
    /// Argo CD's finalizer that deletes an Application's resources with it.
    static let cascadeFinalizer = "resources-finalizer.argocd.argoproj.io"

    public let application: String
    public let source: Source
    /// Sorted by cloud.
    public let clusters: [Cluster]

    public init(application: String, source: Source, clusters: [Cluster]) {
        self.application = application
        self.source = source
        self.clusters = clusters.sorted { $0.cloud < $1.cloud }
    }

    /// The bootstrap of a rendering: one cluster per folder under `clusters/`, named as the model's catalog says.
    public init(model: Model, rendering: Rendering, source: Source) {
        let endpoints = Dictionary(model.clouds.map { ($0.name, $0.endpoints) }, uniquingKeysWith: { first, _ in first })
        self.init(
            application: model.application.name, source: source,
            clusters: rendering.clusters.map { cluster in
                var named = Cluster(cloud: cluster.cloud, endpoints: endpoints[cluster.cloud] ?? Cloud.Endpoints())
                named.decrypts = rendering.secrets.contains { $0.cloud == cluster.cloud }
                return named
            }
        )
    }

    /// The folder of a cluster in the tree, as both tools' paths name it.
    public static func path(of cloud: String) -> String { "clusters/\(cloud)" }

    /// The Argo CD Application a cluster's element of the list generator makes.
    public func applicationName(_ cloud: String) -> String { KubernetesName.fit("\(application)-\(cloud)") }

    public func kustomizationName(_ cloud: String) -> String { KubernetesName.fit("\(application)-\(cloud)") }

    /// Every object, by its path in the tree: `bootstrap/argocd/<application>.applicationset.yaml`,
    /// `bootstrap/flux/<application>.gitrepository.yaml` and `bootstrap/flux/<application>-<cloud>.kustomization.yaml`.
    public var objects: [(path: String, body: ObjectNode)] {
        [(path: "bootstrap/argocd/\(application).applicationset.yaml", body: applicationSet),
         (path: "bootstrap/flux/\(application).gitrepository.yaml", body: gitRepository)]
            + clusters.map { (path: "bootstrap/flux/\(kustomizationName($0.cloud)).kustomization.yaml", body: kustomization($0)) }
    }

    public var files: [RenderedTree.File] {
        var writer = BlockYAMLWriter()
        return objects.map { RenderedTree.File(path: $0.path, contents: writer.document($0.body)) }.sorted { $0.path < $1.path }
    }

    private func metadata(_ name: String, namespace: String, cloud: String? = nil) -> ObjectNode {
        var labels = [
            (ResourceLabels.name, application), (ResourceLabels.instance, name), (ResourceLabels.partOf, application),
            (ResourceLabels.managedBy, ResourceLabels.manager),
        ]
        if let cloud { labels.append((ResourceLabels.cloud, cloud)) }
        return ["name": .string(name), "namespace": .string(namespace), "labels": .sortedStrings(labels)]
    }

    // MARK: Argo CD

    /// One Application per cluster through the list generator, with Go templates that fail on a missing key. Each
    /// Application carries the cascade finalizer, so a cluster the placement no longer uses loses its Application
    /// and, with it, the objects it ran: left behind, they would keep serving (and holding data) where the manifests
    /// no longer allow them. Sync uses server-side apply, as mcloud does, prunes last and refuses an object another
    /// Application owns; the autoscaler's replica counts are not reverted.
    var applicationSet: ObjectNode {
        let byServer = clusters.contains { if case .server = $0.argocd { true } else { false } }
        let byName = clusters.contains { if case .name = $0.argocd { true } else { false } }
        let elements: [ObjectNode] = clusters.map { cluster in
            var fields: [(String, ObjectNode)] = [
                ("cloud", .string(cluster.cloud)), ("application", .string(applicationName(cluster.cloud))),
                ("path", .string(Self.path(of: cluster.cloud))),
            ]
            // Argo CD takes an empty server or name as unset; one of the two is always given.
            switch cluster.argocd {
            case .name(let name):
                fields.append(("destinationName", .string(name)))
                if byServer { fields.append(("destinationServer", "")) }
            case .server(let server):
                if byName { fields.append(("destinationName", "")) }
                fields.append(("destinationServer", .string(server)))
            }
            return .map(fields)
        }
        var destination: [(String, ObjectNode)] = []
        if byName { destination.append(("name", "{{.destinationName}}")) }
        if byServer { destination.append(("server", "{{.destinationServer}}")) }
        let templateLabels = [
            (ResourceLabels.name, application), (ResourceLabels.partOf, application), (ResourceLabels.managedBy, ResourceLabels.manager),
            (ResourceLabels.cloud, "{{.cloud}}"),
        ]
        return [
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "ApplicationSet",
            "metadata": metadata(application, namespace: Self.argocdNamespace),
            "spec": [
                "goTemplate": true,
                "goTemplateOptions": ["missingkey=error"],
                "generators": [["list": ["elements": .list(elements)]]],
                "template": [
                    "metadata": [
                        "name": "{{.application}}",
                        "labels": .sortedStrings(templateLabels),
                        "finalizers": [.string(Self.cascadeFinalizer)],
                    ],
                    "spec": [
                        "project": "default",
                        "source": ["repoURL": .string(source.url), "targetRevision": .string(source.branch), "path": "{{.path}}"],
                        "destination": .map(destination),
                        "syncPolicy": [
                            "automated": ["prune": true, "selfHeal": true],
                            "syncOptions": ["ServerSideApply=true", "PruneLast=true", "FailOnSharedResource=true", "RespectIgnoreDifferences=true"],
                            "retry": ["limit": 5, "backoff": ["duration": "5s", "factor": 2, "maxDuration": "3m"]],
                        ],
                        // The autoscaler (in kube-controller-manager) owns spec.replicas once it has scaled; the
                        // rendered count only seeds a new Deployment.
                        "ignoreDifferences": [["group": "apps", "kind": "Deployment", "managedFieldsManagers": ["kube-controller-manager"]]],
                    ],
                ],
            ],
        ]
    }

    // MARK: Flux

    /// The repository, limited to `clusters/`: Flux's artifact then holds only what its Kustomizations apply.
    var gitRepository: ObjectNode {
        var spec: [(String, ObjectNode)] = [
            ("interval", "1m0s"), ("url", .string(source.url)), ("ref", ["branch": .string(source.branch)]),
        ]
        if let secret = source.fluxSecret { spec.append(("secretRef", ["name": .string(secret)])) }
        spec.append(("ignore", "/*\n!/clusters/\n"))
        return [
            "apiVersion": "source.toolkit.fluxcd.io/v1",
            "kind": "GitRepository",
            "metadata": metadata(application, namespace: Self.fluxNamespace),
            "spec": .map(spec),
        ]
    }

    /// One cluster's folder, applied to that cluster through its kubeconfig Secret; `prune` deletes what a render
    /// removed, `wait` reports the Kustomization ready only once its objects are.
    func kustomization(_ cluster: Cluster) -> ObjectNode {
        var secretRef: [(String, ObjectNode)] = [("name", .string(cluster.flux.secret))]
        if let key = cluster.flux.key { secretRef.append(("key", .string(key))) }
        var spec: [(String, ObjectNode)] = [
            ("interval", "10m0s"),
            ("retryInterval", "2m0s"),
            ("timeout", "5m0s"),
            ("path", .string("./" + Self.path(of: cluster.cloud))),
            ("prune", true),
            ("wait", true),
            ("sourceRef", ["kind": "GitRepository", "name": .string(application)]),
            ("kubeConfig", ["secretRef": .map(secretRef)]),
        ]
        if cluster.decrypts { spec.append(("decryption", ["provider": "sops", "secretRef": ["name": .string(Self.fluxDecryptionSecret)]])) }
        return [
            "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
            "kind": "Kustomization",
            "metadata": metadata(kustomizationName(cluster.cloud), namespace: Self.fluxNamespace, cloud: cluster.cloud),
            "spec": .map(spec),
        ]
    }
}
