/// The labels by which every rendered body says what it is and that mcloud owns it, in one place: rendering writes
/// them, providers read them (to find what is theirs, to tag what they make in the cloud) and the Kubernetes
/// provider selects by them. The `app.kubernetes.io` ones are Kubernetes' recommended labels (docs/cli.md requires them);
/// the `mcloud.io` ones are mcloud's. Tags a cloud keeps of its own (AWS tags, OpenStack metadata) are named by the
/// provider that writes and reads them.
public enum ResourceLabels {
    /// The workload, or the application for what spans it.
    public static let name = "app.kubernetes.io/name"
    /// The cell (`payments-api.ru`: label values cannot hold `@`), or the namespace.
    public static let instance = "app.kubernetes.io/instance"
    /// The application.
    public static let partOf = "app.kubernetes.io/part-of"
    /// Always `manager`.
    public static let managedBy = "app.kubernetes.io/managed-by"
    /// The cell, on what is rendered for one.
    public static let cell = "mcloud.io/cell"
    public static let audience = "mcloud.io/audience"
    /// The catalog cloud the body was rendered for.
    public static let cloud = "mcloud.io/cloud"

    /// The value of `managedBy` on everything mcloud makes.
    public static let manager = "mcloud"
    /// The prefixes a workload's own labels may not use: they could pose as one of the keys above.
    public static let reservedPrefixes = ["app.kubernetes.io/", "mcloud.io/"]

    /// The keys of the tags (AWS) or metadata on what mcloud makes in a cloud whose resources carry no labels.
    public enum CloudTag {
        /// Always `manager`: marks what mcloud made.
        public static let managedBy = "mcloud.io/managed-by"
        public static let application = "application"
        /// The cell, as the `cell` label carries it.
        public static let cell = "cell"
        /// The resource's address (docs/engine.md), by which a provider finds what it made.
        public static let address = "mcloud.io/address"
        /// The digest of the body the resource was last made from.
        public static let digest = "mcloud.io/spec-digest"
    }

    /// The label selector of everything rendered for `application`: `app.kubernetes.io/managed-by=mcloud,...`.
    public static func selector(application: String) -> String {
        "\(managedBy)=\(manager),\(partOf)=\(application)"
    }
}
