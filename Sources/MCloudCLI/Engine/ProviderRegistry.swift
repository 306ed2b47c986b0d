import Foundation
import MCloudCore
import MCloudKubernetes
import MCloudProvider
import Synchronization

/// The providers this mcloud has, configured from each cloud's catalog `endpoints` and the standard credential
/// files: kubeconfig for Kubernetes.
final class ProviderRegistry: ProviderCatalog {
    let environment: [String: String]
    private let kubeconfigs = Mutex<[String: Kubeconfig]>([:])

    init(environment: [String: String]) {
        self.environment = environment
    }

    func provider(named name: String, for cloud: Cloud) throws(ProviderError) -> any ResourceProvider {
        switch name {
        case "kubernetes":
            guard let context = cloud.endpoints.kubernetesContext else {
                throw ProviderError(.unavailable, "cloud \(cloud.name) has no endpoints.kubernetes.context in the catalog")
            }
            let file = cloud.endpoints.kubeconfig
            return KubernetesResourceProvider(cloud: cloud.name) { () throws(ProviderError) -> KubernetesClient in
                do throws(KubeconfigError) {
                    let connection = try self.kubeconfig(file).connection(context: context)
                    return KubernetesClient(connection: connection, environment: self.environment)
                } catch {
                    throw ProviderError(.unavailable, "cloud \(cloud.name): \(error.description)")
                }
            }
        default:
            throw ProviderError(.unavailable, "the \(name) provider (cloud \(cloud.name)) is not built into this mcloud yet")
        }
    }

    /// The kubeconfig a cloud names, or the standard one (`KUBECONFIG`, `~/.kube/config`); each read once.
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
