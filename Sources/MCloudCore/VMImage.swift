/// The image a cloud's database VMs boot: its family (`debian-12`, `ubuntu-24.04`: what the engine catalog's recipes
/// are written for) and how the cloud's provider finds it. Chosen by the catalog, never "whatever is newest" of a
/// distribution: a cloud without `spec.vm.image` gets its API's standard Debian 12 image.
public struct VMImage: Hashable, Sendable {
    public var family: String
    /// An exact image ID (Glance UUID, `ami-...`): used as it is.
    public var id: String?
    /// The image name (Glance's exact name; an AMI name pattern with `*` on AWS): the newest active match.
    public var name: String?
    /// AWS: the account that owns the AMI.
    public var owner: String?
    /// OpenStack: Glance properties the image must have (`os_distro: debian`, `os_version: "12"`).
    public var properties: [String: String]

    public init(family: String, id: String? = nil, name: String? = nil, owner: String? = nil, properties: [String: String] = [:]) {
        self.family = family
        self.id = id
        self.name = name
        self.owner = owner
        self.properties = properties
    }

    /// Debian 12: on OpenStack the image with Glance's standard `os_distro`/`os_version` properties, on AWS Debian's
    /// own AMIs (account 136693071363, names `debian-12-amd64-*`).
    public static func standard(for api: Cloud.API) -> VMImage {
        switch api {
        case .openstack: VMImage(family: "debian-12", properties: ["os_distro": "debian", "os_version": "12"])
        case .aws: VMImage(family: "debian-12", name: "debian-12-amd64-*", owner: "136693071363")
        }
    }
}
