public import MCloudKubernetes
public import MCloudCore
public import MCloudHTTP
public import MCloudProvider

/// The engine's provider for one cluster: server-side apply as field manager `mcloud`, refresh by one list per
/// kind and namespace selected by mcloud's labels, deletes that wait until the object is gone. An Ingress reports the
/// addresses its load balancers have (`status.addresses`), which apply puts in the EndpointSlices and egress policies
/// of the clusters that reach the service through it.
public struct KubernetesResourceProvider: ResourceProvider {
    public let name = ProviderName.kubernetes
    public let cloud: String
    private let clients: OnFirstUse<KubernetesClient, ProviderError>
    /// How long a delete waits for finalizers before it fails.
    private let deleteTimeout: Double
    /// Turns a load balancer's host name into addresses.
    private let resolver: HostResolver
    /// Derives the connection Secrets' values and masks every Secret read back.
    private let secretValues: ConnectionSecretValues

    /// `connect` makes the client on first use, so a plan that reads nothing from this cluster needs no kubeconfig.
    /// `environment` is where the operator's age identity is found (`AgeKeyFile`), read only when a connection Secret
    /// is applied or read back.
    public init(
        cloud: String, deleteTimeout: Double = 300, resolver: HostResolver = .system, environment: [String: String] = [:],
        connect: @escaping @Sendable () throws(ProviderError) -> KubernetesClient
    ) {
        self.resolver = resolver
        secretValues = ConnectionSecretValues(environment: environment)
        self.cloud = cloud
        self.deleteTimeout = deleteTimeout
        clients = OnFirstUse(connect)
    }

    public func refresh(application: String, desired: [DesiredResource], recorded: [ResourceState]) async throws(ProviderError) -> [ObservedResource] {
        let client = try await clients.value()
        // The address each known object goes by, keyed without the API version, which the cluster may serve older.
        var known: [String: (address: ResourceAddress, apiVersion: String)] = [:]
        var lists = Set<ListKey>()
        for (address, body) in desired.map({ ($0.address, $0.body) }) + recorded.map({ ($0.address, $0.attributes) }) {
            guard let identity = Identity(body) else { continue }
            known[identity.key] = known[identity.key] ?? (address, identity.apiVersion)
            lists.insert(ListKey(apiVersion: identity.apiVersion, kind: identity.kind, namespace: identity.namespace))
        }
        let selector = ResourceLabels.selector(application: application)
        let cloud = cloud
        let addresses = known
        let autoscaled = Self.autoscaledReplicas(desired)
        let resolver = resolver
        let secretValues = secretValues
        let results = await withTaskGroup(of: Result<[ObservedResource], ProviderError>.self) { group in
            for list in lists {
                group.addTask {
                    do throws(KubernetesError) {
                        let served = try await client.servedVersion(apiVersion: list.apiVersion, kind: list.kind)
                        let objects = try await client.list(
                            apiVersion: served, kind: list.kind, namespace: list.namespace.isEmpty ? nil : list.namespace, labelSelector: selector
                        )
                        var observed: [ObservedResource] = []
                        for object in objects {
                            guard let identity = Identity(object) else { continue }
                            let match = addresses[identity.key]
                            let address = match?.address ?? Self.address(cloud: cloud, identity)
                            var (attributes, warnings) = await secretValues.masked(Self.reporting(object, resolver: resolver))
                            if let apiVersion = match?.apiVersion { attributes = Self.replacing("apiVersion", with: .string(apiVersion), in: attributes) }
                            // The autoscaler owns the replicas of what it scales: its changes are not drift.
                            if identity.kind == ResourceKind.deployment.rawValue, let replicas = autoscaled["\(identity.namespace)/\(identity.name)"],
                                case .object(let pairs) = attributes, let spec = attributes["spec"]
                            {
                                attributes = .object(pairs.map { $0.0 == "spec" ? ("spec", Self.replacing("replicas", with: replicas, in: spec)) : $0 })
                            }
                            observed.append(ObservedResource(
                                address: address, providerID: object.value(at: ["metadata", "uid"])?.stringValue ?? "",
                                attributes: attributes, isBeingDeleted: object.value(at: ["metadata", "deletionTimestamp"]) != nil,
                                warnings: warnings, rollout: Rollout(deployment: object)
                            ))
                        }
                        return .success(observed)
                    } catch {
                        return .failure(Self.providerError(error))
                    }
                }
            }
            var collected: [Result<[ObservedResource], ProviderError>] = []
            for await result in group { collected.append(result) }
            return collected
        }
        var observed: [ObservedResource] = []
        for result in results {
            switch result {
            case .success(let found): observed += found
            case .failure(let error): throw error
            }
        }
        return observed.sorted { $0.address < $1.address }
    }

    /// The desired replicas of each Deployment (`namespace/name`) that a desired HorizontalPodAutoscaler scales.
    static func autoscaledReplicas(_ desired: [DesiredResource]) -> [String: JSONValue] {
        let deployments = Dictionary(
            desired.filter { $0.type == .deployment }.map { resource in
                ("\(resource.body.value(at: ["metadata", "namespace"])?.stringValue ?? "")/\(resource.body.value(at: ["metadata", "name"])?.stringValue ?? "")", resource)
            },
            uniquingKeysWith: { first, _ in first }
        )
        var result: [String: JSONValue] = [:]
        for autoscaler in desired where autoscaler.type == .horizontalPodAutoscaler {
            guard autoscaler.body.value(at: ["spec", "scaleTargetRef", "kind"])?.stringValue == ResourceKind.deployment.rawValue,
                let name = autoscaler.body.value(at: ["spec", "scaleTargetRef", "name"])?.stringValue
            else { continue }
            let key = "\(autoscaler.body.value(at: ["metadata", "namespace"])?.stringValue ?? "")/\(name)"
            if let replicas = deployments[key]?.body.value(at: ["spec", "replicas"]) { result[key] = replicas }
        }
        return result
    }

    /// A Deployment rendered for a cell carries the cell's labels and its replicas in this cluster.
    public func cellReplicas(of body: JSONValue) -> CellReplicas? {
        let read = ResourceBody(body)
        guard read.kind == .deployment, let name = read.label(ResourceLabels.name), read.cell != nil else { return nil }
        let cell = read.label(ResourceLabels.audience).map { "\(name)@\($0)" } ?? name
        return CellReplicas(cell: cell, replicas: body.value(at: ["spec", "replicas"])?.intValue ?? 1)
    }

    /// Fields the API server refuses to change on a live object.
    public func replacementReasons(desired: DesiredResource, current: JSONValue) -> [String] {
        let immutable: [ResourceKind: [[String]]] = [
            "Deployment": [["spec", "selector"]], "StatefulSet": [["spec", "selector"], ["spec", "serviceName"]],
            "DaemonSet": [["spec", "selector"]], "ReplicaSet": [["spec", "selector"]], "Job": [["spec", "template"]],
        ]
        return (immutable[desired.type] ?? []).compactMap { path in
            guard let wanted = desired.body.value(at: path), let now = current.value(at: path), !FieldDiff.same(wanted, now) else { return nil }
            return "\(path.joined(separator: ".")) cannot change on a \(desired.type)"
        }
    }

    public func create(_ resource: DesiredResource) async throws(ProviderError) -> ObservedResource {
        try await applied(resource)
    }

    public func update(_ resource: DesiredResource, recorded: ResourceState) async throws(ProviderError) -> ObservedResource {
        try await applied(resource)
    }

    /// Server-side apply creates or updates alike, and takes over the fields the manifests declare even when someone
    /// changed them by hand (the manifests are the truth, as with Argo CD and Flux).
    private func applied(_ resource: DesiredResource) async throws(ProviderError) -> ObservedResource {
        let client = try await clients.value()
        let body = try await secretValues.filled(resource.body)
        do throws(KubernetesError) {
            let live = try await client.apply(body, force: true)
            let (attributes, warnings) = await secretValues.masked(Self.reporting(live, resolver: resolver))
            return ObservedResource(
                address: resource.address, providerID: live.value(at: ["metadata", "uid"])?.stringValue ?? "", attributes: attributes,
                warnings: warnings
            )
        } catch {
            throw Self.providerError(error)
        }
    }

    public func delete(_ resource: ResourceState) async throws(ProviderError) {
        guard let identity = Identity(resource.attributes) else {
            throw ProviderError(.failed, "\(resource.address): the state does not say which object it is (apiVersion, kind, metadata.name)")
        }
        let client = try await clients.value()
        do throws(KubernetesError) {
            let served = try await client.servedVersion(apiVersion: identity.apiVersion, kind: identity.kind)
            let reference = ObjectReference(apiVersion: served, kind: identity.kind, namespace: identity.namespace, name: identity.name)
            guard try await client.delete(reference, propagation: .background) else { return }
            // A namespace empties itself after its objects are gone; the namespace controller finishes it.
            guard identity.kind != ResourceKind.namespace.rawValue else { return }
            try await client.waitUntilGone(reference, timeout: deleteTimeout)
        } catch {
            throw Self.providerError(error)
        }
    }

    static func providerError(_ error: KubernetesError) -> ProviderError {
        guard let status = error.status else {
            if case .credentials = error { return ProviderError(.unauthorized, error.description) }
            return ProviderError(.failed, error.description)
        }
        switch status.code {
        case 403 where status.message.contains("exceeded quota"): return ProviderError(.capacity, status.description)
        case 401, 403: return ProviderError(.unauthorized, status.description)
        case 409: return ProviderError(.conflict, status.description)
        default: return ProviderError(.failed, status.description)
        }
    }

    /// The object trimmed, with the addresses an Ingress's load balancers report in its status, as the ingress
    /// controller writes them there (`status.loadBalancer.ingress`: an `ip`, or a `hostname`, resolved).
    static func reporting(_ object: JSONValue, resolver: HostResolver) async -> JSONValue {
        let body = ResourceBody(trimmed(object))
        guard body.kind == .ingress else { return body.document }
        var addresses: [String] = []
        for entry in object.value(at: ["status", "loadBalancer", "ingress"])?.arrayItems ?? [] {
            if let ip = entry["ip"]?.stringValue {
                addresses.append(ip)
            } else if let host = entry["hostname"]?.stringValue {
                addresses += await resolver.ipv4Addresses(host)
            }
        }
        return body.reportingAddresses(addresses).document
    }

    /// The object without what the server keeps for itself, so state and plans stay readable.
    static func trimmed(_ object: JSONValue) -> JSONValue {
        let serverOwned: Set<String> = ["managedFields", "resourceVersion", "uid", "creationTimestamp", "generation", "selfLink"]
        guard case .object(let pairs) = object else { return object }
        let slice = object["kind"]?.stringValue == ResourceKind.endpointSlice.rawValue
        return .object(pairs.compactMap { key, value in
            if key == "status" { return nil }
            // The API server gives a slice's empty endpoints back as null; rendering writes the list the schema requires.
            if slice, key == "endpoints", case .null = value { return (key, .array([])) }
            if key == "metadata", case .object(let metadata) = value { return (key, .object(metadata.filter { !serverOwned.contains($0.0) })) }
            return (key, value)
        })
    }

    private static func replacing(_ key: String, with value: JSONValue, in object: JSONValue) -> JSONValue {
        guard case .object(let pairs) = object else { return object }
        return .object(pairs.map { $0.0 == key ? (key, value) : $0 })
    }

    /// The address of an object that neither the manifests nor the state name (it is deleted as an orphan).
    private static func address(cloud: String, _ identity: Identity) -> ResourceAddress {
        .kubernetes(cloud: cloud, apiVersion: identity.apiVersion, kind: ResourceKind(identity.kind), namespace: identity.namespace, name: identity.name)
    }

    private struct ListKey: Hashable {
        var apiVersion: String
        var kind: String
        var namespace: String
    }

    /// Which object a body is: enough to list, address and delete it.
    private struct Identity {
        var apiVersion: String
        var kind: String
        var namespace: String
        var name: String

        init?(_ body: JSONValue) {
            guard let apiVersion = body["apiVersion"]?.stringValue, let kind = body["kind"]?.stringValue,
                let name = body.value(at: ["metadata", "name"])?.stringValue
            else { return nil }
            self.apiVersion = apiVersion
            self.kind = kind
            self.name = name
            namespace = kind == ResourceKind.namespace.rawValue ? "" : body.value(at: ["metadata", "namespace"])?.stringValue ?? ""
        }

        /// The API group without its version: `apps`, or empty for the core group.
        var key: String {
            let group = apiVersion.contains("/") ? String(apiVersion.split(separator: "/")[0]) : ""
            return "\(group)|\(kind)|\(namespace)|\(name)"
        }
    }
}
