/// How mcloud recognises its CDN resources, which carry no labels or tags: one line in the resource's free-text
/// field (G-Core `description`, CloudFront `Comment`, 128 characters at most):
/// `mcloud <application> <digest> <address>`. The digest is that of the whole desired body, so fields the CDN
/// cannot report back (weights, audiences, labels) are known to match the body it was made from.
public struct CDNMarker: Sendable, Hashable, CustomStringConvertible {
    public var application: String
    public var digest: String
    public var address: String

    public init(application: String, digest: String, address: String) {
        self.application = application
        self.digest = digest
        self.address = address
    }

    /// Reads a marker back; nil for text mcloud did not write.
    public init?(_ text: String) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 4, parts[0] == "mcloud" else { return nil }
        self.init(application: parts[1], digest: parts[2], address: parts[3])
    }

    public var description: String { "mcloud \(application) \(digest) \(address)" }
}
