/// A vendor's apt repository as its documentation describes it: the signing key's URL and fingerprint, and the
/// deb822 source. The VM downloads the key from the vendor at boot into `/etc/apt/keyrings/<name>.asc` (or `.gpg`); the source's
/// `Signed-By` names that file and, where the vendor publishes it, the fingerprint, so apt accepts only that key's
/// signatures whatever the download returned (apt sources.list(5): "fingerprints of keys to select from these
/// keyrings"). A pin keeps the major version the manifest asked for.
public struct VendorRepository: Sendable, Hashable {
    /// Keeps the packages at one series: an apt preferences stanza, by version (`version 6:7.2.*`) where the
    /// repository holds every series, by origin (`origin dlm.mariadb.com`) where its URL names the series but the
    /// distribution has a newer one.
    public struct Pin: Sendable, Hashable {
        public var packages: String
        public var rule: String

        public init(packages: String, rule: String) {
            self.packages = packages
            self.rule = rule
        }
    }

    /// The file name of the keyring, source and preferences (`pgdg` makes `/etc/apt/keyrings/pgdg.asc`).
    public var name: String
    public var vendor: String
    public var keyURL: String
    /// `asc` for an armored key, `gpg` for a binary keyring: apt tells them by the extension.
    public var keyFormat: String
    /// The signing key's fingerprint, 40 hex digits, as the vendor documents it; nil where no documented one was found.
    public var fingerprint: String?
    public var uri: String
    public var suite: String
    public var components: [String]
    public var pin: Pin?
    /// The vendor's pages this repository's line, key URL and fingerprint are taken from.
    public var documentation: [String]

    public init(
        name: String, vendor: String, keyURL: String, keyFormat: String = "asc", fingerprint: String?, uri: String, suite: String, components: [String],
        pin: Pin? = nil, documentation: [String]
    ) {
        self.name = name
        self.vendor = vendor
        self.keyURL = keyURL
        self.keyFormat = keyFormat
        self.fingerprint = fingerprint
        self.uri = uri
        self.suite = suite
        self.components = components
        self.pin = pin
        self.documentation = documentation
    }

    public var keyPath: String { "/etc/apt/keyrings/\(name).\(keyFormat)" }
    public var sourcesPath: String { "/etc/apt/sources.list.d/\(name).sources" }
    public var preferencesPath: String { "/etc/apt/preferences.d/\(name)" }

    /// `/etc/apt/sources.list.d/<name>.sources`.
    public var sources: String {
        """
        Types: deb
        URIs: \(uri)
        Suites: \(suite)
        Components: \(components.joined(separator: " "))
        Signed-By: \(([keyPath] + (fingerprint.map { [$0] } ?? [])).joined(separator: " "))

        """
    }

    /// `/etc/apt/preferences.d/<name>`, when the repository is pinned to a series.
    public var preferences: String? {
        pin.map { pin in
            """
            Package: \(pin.packages)
            Pin: \(pin.rule)
            Pin-Priority: 1001

            """
        }
    }
}
