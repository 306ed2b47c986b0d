/// One region of a vendor: what it offers, what it can still hold, what it costs, how far it is from each audience.
public struct Cloud: Hashable, Sendable {
    public enum API: String, Hashable, Sendable, CaseIterable {
        case openstack
        case aws
    }

    public struct Offers: Hashable, Sendable {
        public var kubernetes: Bool
        public var vm: Bool
        public var dbaas: [String]
        /// The versions a managed engine is sold in, where the catalog lists them (`dbaas: {postgresql: ["15", "16"]}`);
        /// an engine of `dbaas` without an entry here is taken in any version the manifest asks.
        public var dbaasVersions: [String: [String]]
        public var objectStorage: Bool
        /// Jurisdiction tags of the CDN's points of presence; nil when the cloud has no CDN.
        public var cdnPops: [String]?

        public init(
            kubernetes: Bool = false, vm: Bool = false, dbaas: [String] = [], dbaasVersions: [String: [String]] = [:], objectStorage: Bool = false,
            cdnPops: [String]? = nil
        ) {
            self.kubernetes = kubernetes
            self.vm = vm
            self.dbaas = dbaas
            self.dbaasVersions = dbaasVersions
            self.objectStorage = objectStorage
            self.cdnPops = cdnPops
        }

        /// Whether the cloud sells `engine` managed in `version`.
        public func sellsManaged(_ engine: String, version: String) -> Bool {
            guard dbaas.contains(engine) else { return false }
            return dbaasVersions[engine].map { $0.contains { EngineVersion.covers(offered: $0, wanted: version) } } ?? true
        }
    }

    public struct Capacity: Hashable, Sendable {
        public var vcpu: Double
        public var memoryGiB: Double
        public var storageGiB: Double

        public init(vcpu: Double, memoryGiB: Double, storageGiB: Double) {
            self.vcpu = vcpu
            self.memoryGiB = memoryGiB
            self.storageGiB = storageGiB
        }
    }

    /// List prices in `currency`; a price is nil when the cloud does not sell that thing.
    public struct Pricing: Hashable, Sendable {
        public var currency: String
        public var vcpuHour: Double?
        public var memoryGiBHour: Double?
        public var storageGiBMonth: Double?
        public var objectStorageGiBMonth: Double?
        public var egressGiB: Double?
        public var cdnGiB: Double?

        public init(
            currency: String, vcpuHour: Double? = nil, memoryGiBHour: Double? = nil, storageGiBMonth: Double? = nil,
            objectStorageGiBMonth: Double? = nil, egressGiB: Double? = nil, cdnGiB: Double? = nil
        ) {
            self.currency = currency
            self.vcpuHour = vcpuHour
            self.memoryGiBHour = memoryGiBHour
            self.storageGiBMonth = storageGiBMonth
            self.objectStorageGiBMonth = objectStorageGiBMonth
            self.egressGiB = egressGiB
            self.cdnGiB = cdnGiB
        }
    }

    /// Where apply and refresh reach the cloud; plan needs none of it.
    public struct Endpoints: Hashable, Sendable {
        public var openstackCloud: String?
        public var kubernetesContext: String?
        public var kubeconfig: String?
        /// The addresses (CIDRs) the cluster's traffic leaves from: a database's security group admits its
        /// engine port from these only.
        public var kubernetesEgressCIDRs: [String]
        /// The Multi-Cluster Services cluster set the cluster belongs to (KEP-1645): its services reach a service of
        /// another cluster of the same set by `<service>.<namespace>.svc.clusterset.local`.
        public var kubernetesClusterSet: String?
        /// The cluster's age recipient (`age1...`), to which `render` also encrypts the Secrets it writes into that
        /// cluster's folder, so its Flux decrypts them with its own identity (docs/gitops.md, "Secrets").
        public var kubernetesAgeRecipient: String?
        /// The cluster's API server URL: Argo CD's `destination.server` for it.
        public var kubernetesServer: String?
        /// The name the cluster is registered under in Argo CD: its `destination.name` (by default the cloud's
        /// name, unless `kubernetesServer` is set).
        public var argocdCluster: String?
        /// The Secret, next to Flux's Kustomizations, holding the kubeconfig of the cluster (by default
        /// `<cloud>-kubeconfig`), and its key (by default Flux's own, `value`).
        public var fluxKubeConfigSecret: String?
        public var fluxKubeConfigKey: String?
        public var cdnURL: String?
        public var cdnTokenEnv: String?
        public var objectStorageURL: String?
        /// The profile of the operator's AWS files whose keys a database VM gets for a backup bucket in this cloud's
        /// object storage (`endpoints.objectStorage.backupProfile`): never the identity mcloud deploys with.
        public var objectStorageBackupProfile: String?
        public var awsProfile: String?

        public init(
            openstackCloud: String? = nil, kubernetesContext: String? = nil, kubeconfig: String? = nil, cdnURL: String? = nil,
            cdnTokenEnv: String? = nil, objectStorageURL: String? = nil, awsProfile: String? = nil, kubernetesEgressCIDRs: [String] = [],
            kubernetesServer: String? = nil, argocdCluster: String? = nil, fluxKubeConfigSecret: String? = nil, fluxKubeConfigKey: String? = nil,
            objectStorageBackupProfile: String? = nil, kubernetesClusterSet: String? = nil, kubernetesAgeRecipient: String? = nil
        ) {
            self.kubernetesAgeRecipient = kubernetesAgeRecipient
            self.kubernetesClusterSet = kubernetesClusterSet
            self.objectStorageBackupProfile = objectStorageBackupProfile
            self.kubernetesEgressCIDRs = kubernetesEgressCIDRs
            self.kubernetesServer = kubernetesServer
            self.argocdCluster = argocdCluster
            self.fluxKubeConfigSecret = fluxKubeConfigSecret
            self.fluxKubeConfigKey = fluxKubeConfigKey
            self.openstackCloud = openstackCloud
            self.kubernetesContext = kubernetesContext
            self.kubeconfig = kubeconfig
            self.cdnURL = cdnURL
            self.cdnTokenEnv = cdnTokenEnv
            self.objectStorageURL = objectStorageURL
            self.awsProfile = awsProfile
        }
    }

    public var name: String
    public var vendor: String
    public var api: API
    public var jurisdiction: [String]
    public var region: String
    public var zones: [String]
    public var offers: Offers
    public var capacity: Capacity
    public var pricing: Pricing
    /// Round-trip time to each audience, by audience name.
    public var latencyMs: [String: Double]
    /// Round-trip time to other clouds, by cloud name, as written on this cloud (`spec.cloudLatencyMs`); a pair
    /// written on either side counts both ways, and `CloudLatency` fills in the pairs nobody wrote.
    public var cloudLatencyMs: [String: Double]
    public var endpoints: Endpoints
    /// What its database VMs boot (`spec.vm.image`).
    public var vmImage: VMImage
    /// The Cinder volume type its database VMs' volumes are made with (`spec.vm.encryptedVolumeType`): one the cloud
    /// encrypts. Nil: the cloud's default type, encrypted or not. OpenStack only; AWS encrypts every EBS volume.
    public var vmEncryptedVolumeType: String?
    public var location: SourceLocation

    public init(
        name: String, vendor: String, api: API, jurisdiction: [String], region: String, zones: [String], offers: Offers,
        capacity: Capacity, pricing: Pricing, latencyMs: [String: Double], cloudLatencyMs: [String: Double] = [:], endpoints: Endpoints,
        vmImage: VMImage? = nil, vmEncryptedVolumeType: String? = nil, location: SourceLocation
    ) {
        self.vmEncryptedVolumeType = vmEncryptedVolumeType
        self.name = name
        self.vendor = vendor
        self.api = api
        self.jurisdiction = jurisdiction
        self.region = region
        self.zones = zones
        self.offers = offers
        self.capacity = capacity
        self.pricing = pricing
        self.latencyMs = latencyMs
        self.cloudLatencyMs = cloudLatencyMs
        self.endpoints = endpoints
        self.vmImage = vmImage ?? .standard(for: api)
        self.location = location
    }
}
