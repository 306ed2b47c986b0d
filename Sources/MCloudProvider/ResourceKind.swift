/// What a resource is: a body's `kind`. Kubernetes kinds as Kubernetes names them; the infrastructure kinds of
/// docs/gitops.md, which rendering writes and the IaaS and CDN providers implement, are named here once.
public struct ResourceKind: TypedName {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    // Infrastructure (`infrastructure.mcloud.io/v1`).
    public static let volume: ResourceKind = "Volume"
    public static let securityGroup: ResourceKind = "SecurityGroup"
    public static let databaseServer: ResourceKind = "DatabaseServer"
    public static let managedDatabase: ResourceKind = "ManagedDatabase"
    public static let backupSchedule: ResourceKind = "BackupSchedule"
    public static let backupBucket: ResourceKind = "BackupBucket"
    public static let backupIdentity: ResourceKind = "BackupIdentity"
    public static let cdnResource: ResourceKind = "CDNResource"

    // The Kubernetes kinds more than one module names.
    public static let namespace: ResourceKind = "Namespace"
    public static let deployment: ResourceKind = "Deployment"
    public static let ingress: ResourceKind = "Ingress"
    public static let service: ResourceKind = "Service"
    public static let endpointSlice: ResourceKind = "EndpointSlice"
    public static let networkPolicy: ResourceKind = "NetworkPolicy"
    public static let horizontalPodAutoscaler: ResourceKind = "HorizontalPodAutoscaler"
    public static let secret: ResourceKind = "Secret"
}
