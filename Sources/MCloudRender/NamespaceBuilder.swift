/// A namespace of one cluster: the Namespace itself and the policy that denies all traffic its cells do not need.
enum NamespaceBuilder {
    static func build(namespace: String, application: String, audience: String?, cloud: String) -> [KubernetesObject] {
        let labels = CellLabels(namespace: namespace, application: application, audience: audience)
        // Baseline Pod Security refuses privileged pods and host access, which no service in the model asks for.
        let namespaceLabels = labels.metadata(cloud: cloud, extra: [("pod-security.kubernetes.io/enforce", "baseline")])
        return [
            KubernetesObject("v1", "Namespace", name: namespace, namespace: namespace, labels: namespaceLabels, content: []),
            NetworkPolicyBuilder.defaultDeny(namespace: namespace, labels: labels.metadata(cloud: cloud)),
        ]
    }
}
