/// One cloud of clouds.yaml, resolved: where Keystone is, who to be, and which endpoints to use.
public struct CloudConfig: Sendable, Hashable {
    /// A user or project named by id, or by name within a domain (itself by id or name).
    public struct Scope: Sendable, Hashable {
        public var id: String?
        public var name: String?
        public var domainID: String?
        public var domainName: String?

        public init(id: String? = nil, name: String? = nil, domainID: String? = nil, domainName: String? = nil) {
            self.id = id
            self.name = name
            self.domainID = domainID
            self.domainName = domainName
        }
    }

    public enum Auth: Sendable, Hashable, CustomStringConvertible {
        case password(user: Scope, password: String, project: Scope?)
        /// By id, or by name with the owning user.
        case applicationCredential(id: String?, name: String?, secret: String, user: Scope?)

        /// Never shows the password or secret.
        public var description: String {
            switch self {
            case .password(let user, _, let project):
                return "password auth as \(user.name ?? user.id ?? "?")" + (project.map { " on project \($0.name ?? $0.id ?? "?")" } ?? "")
            case .applicationCredential(let id, let name, _, _):
                return "application credential \(id ?? name ?? "?")"
            }
        }
    }

    public var name: String
    /// Keystone's URL as configured, for example `https://keystone.example:5000/v3`.
    public var authURL: String
    public var auth: Auth
    public var regionName: String?
    /// `public`, `internal` or `admin`.
    public var interface: String
    public var caCertificateFile: String?
    /// False only when the file says `verify: false`.
    public var verify: Bool
    /// The file the cloud came from (nil for OS_* variables).
    public var file: String?

    public init(
        name: String, authURL: String, auth: Auth, regionName: String? = nil, interface: String = "public",
        caCertificateFile: String? = nil, verify: Bool = true, file: String? = nil
    ) {
        self.name = name
        self.authURL = authURL
        self.auth = auth
        self.regionName = regionName
        self.interface = interface
        self.caCertificateFile = caCertificateFile
        self.verify = verify
        self.file = file
    }
}
