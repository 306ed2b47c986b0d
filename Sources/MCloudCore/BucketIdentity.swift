/// The IAM user mcloud makes for a DR leg whose bucket is on AWS (a `BackupIdentity` resource), as a database VM's
/// provider reaches it: the resource's address, the user's name, and the profile of the bucket's cloud that mcloud
/// deploys with (`endpoints.aws.profile`), whose keys make the user's access keys. Nothing secret: the provider makes
/// a fresh key when it creates the VM and puts it into the VM's user data only (docs/security.md, H2).
public struct BucketIdentity: Sendable, Hashable {
    public var address: String
    public var user: String
    public var deployProfile: String?

    public init(address: String, user: String, deployProfile: String? = nil) {
        self.address = address
        self.user = user
        self.deployProfile = deployProfile
    }

    /// The path every user mcloud makes lives under, so that its inventory lists them and nothing else.
    public static let path = "/mcloud/"
    /// The path of the temporary users a drill gives its restoring VMs: under `path`, so refresh lists one a killed
    /// drill left as an orphan of its application, and the next plan deletes it.
    public static let restorePath = "/mcloud/restore/"
}
