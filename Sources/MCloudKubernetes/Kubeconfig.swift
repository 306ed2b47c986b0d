public import MCloudCore

/// The parts of a kubeconfig mcloud uses, merged from every file the way kubectl merges them.
public struct Kubeconfig: Sendable, Hashable {
    public struct Cluster: Sendable, Hashable {
        public var server: String
        public var certificateAuthority: String?
        public var certificateAuthorityData: [UInt8]?
        public var insecureSkipTLSVerify: Bool
        public var location: SourceLocation
    }

    public struct ExecConfig: Sendable, Hashable {
        public var apiVersion: String
        public var command: String
        public var args: [String]
        public var env: [String: String]
        public var installHint: String?
    }

    public struct User: Sendable, Hashable {
        public var clientCertificate: String?
        public var clientCertificateData: [UInt8]?
        public var clientKey: String?
        public var clientKeyData: [UInt8]?
        public var token: String?
        public var tokenFile: String?
        public var exec: ExecConfig?
        public var location: SourceLocation
    }

    public struct Context: Sendable, Hashable {
        public var cluster: String
        public var user: String
        public var namespace: String?
        public var location: SourceLocation
    }

    public var clusters: [String: Cluster] = [:]
    public var users: [String: User] = [:]
    public var contexts: [String: Context] = [:]
    public var currentContext: String?
    /// The files read, in merge order.
    public var files: [String] = []

    public init() {}
}

/// A kubeconfig problem, naming the file and key.
public struct KubeconfigError: Error, Sendable, Hashable, CustomStringConvertible {
    public var location: SourceLocation?
    public var file: String?
    public var message: String

    public init(_ message: String, at location: SourceLocation? = nil, file: String? = nil) {
        self.message = message
        self.location = location
        self.file = file ?? location?.file
    }

    public var description: String {
        if let location { return "\(location): kubeconfig: \(message)" }
        if let file { return "\(file): kubeconfig: \(message)" }
        return "kubeconfig: \(message)"
    }
}
