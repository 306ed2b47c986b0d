import MCloudKubernetes
public import MCloudCore
public import MCloudHTTP
public import MCloudProvider
import Synchronization

/// Kubernetes providers from the standard kubeconfig (`KUBECONFIG`, `~/.kube/config`) or the file a cloud's
/// `endpoints.kubernetes.kubeconfig` names, using the context its `endpoints.kubernetes.context` names. A file the
/// catalog names is used only when the operator allows it (`KubeconfigAllowList`), checked here, before any request.
public final class KubernetesProviderCatalog: ProviderCatalog {
    let environment: [String: String]
    let limits: HTTPLimits
    private let kubeconfigs = Mutex<[String: Kubeconfig]>([:])

    public init(environment: [String: String], limits: HTTPLimits = HTTPLimits()) {
        self.environment = environment
        self.limits = limits
    }

    public func provider(named name: ProviderName, for cloud: Cloud) throws(ProviderError) -> any ResourceProvider {
        guard let context = cloud.endpoints.kubernetesContext else {
            throw ProviderError(.unavailable, "cloud \(cloud.name) has no endpoints.kubernetes.context in the catalog")
        }
        let file = cloud.endpoints.kubeconfig
        if let file {
            let refused = KubeconfigAllowList(environment: environment).refused(file)
            guard refused.isEmpty else {
                throw ProviderError(
                    .unavailable,
                    "cloud \(cloud.name) (\(cloud.location)): endpoints.kubernetes.kubeconfig names \(refused.joined(separator: ", ")), which is "
                        + "neither the operator's kubeconfig (KUBECONFIG, ~/.kube/config) nor listed in \(KubeconfigAllowList.variable); a kubeconfig "
                        + "runs its exec plugin and sends its tokenFile and client key to its server, so mcloud uses one the catalog names only "
                        + "when the operator adds its path to \(KubeconfigAllowList.variable)"
                )
            }
        }
        return KubernetesResourceProvider(cloud: cloud.name, environment: environment) { () throws(ProviderError) -> KubernetesClient in
            do throws(KubeconfigError) {
                let connection = try self.kubeconfig(file).connection(context: context)
                return KubernetesClient(connection: connection, environment: self.environment, retryPolicy: self.limits.retry, timeouts: self.limits.timeouts)
            } catch {
                throw ProviderError(.unavailable, "cloud \(cloud.name): \(error.description)")
            }
        }
    }

    /// The kubeconfig a cloud names, or the standard one; each read once.
    private func kubeconfig(_ file: String?) throws(KubeconfigError) -> Kubeconfig {
        let key = file ?? ""
        if let loaded = kubeconfigs.withLock({ $0[key] }) { return loaded }
        var environment = environment
        if let file { environment["KUBECONFIG"] = file }
        let loaded = try KubeconfigLoader.load(environment: environment)
        kubeconfigs.withLock { $0[key] = loaded }
        return loaded
    }
}
