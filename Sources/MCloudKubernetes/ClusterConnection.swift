import Foundation
import MCloudCore
public import MCloudHTTP

/// Everything needed to talk to one cluster: where it is, whom to trust, who we are.
public struct ClusterConnection: Sendable {
    public enum Credentials: Sendable, Hashable {
        case none
        case token(String)
        /// Re-read on every authentication, as kubectl does, so a rotated token is picked up.
        case tokenFile(String)
        case exec(Kubeconfig.ExecConfig)
    }

    public var context: String
    public var server: String
    public var tls: TLSConfiguration
    public var credentials: Credentials
    public var namespace: String

    public init(context: String, server: String, tls: TLSConfiguration, credentials: Credentials, namespace: String = "default") {
        self.context = context
        self.server = server
        self.tls = tls
        self.credentials = credentials
        self.namespace = namespace
    }
}

extension Kubeconfig {
    /// The connection for a context (the current one when nil), with certificate files read into memory.
    public func connection(context requested: String? = nil) throws(KubeconfigError) -> ClusterConnection {
        let files = self.files.joined(separator: ", ")
        guard let name = requested ?? currentContext else {
            throw KubeconfigError("no context given and no current-context set (files: \(files))")
        }
        guard let context = contexts[name] else {
            let hint = suggestion(name, contexts.keys.sorted())
            throw KubeconfigError("context \"\(name)\" not found (files: \(files))\(hint)")
        }
        guard let cluster = clusters[context.cluster] else {
            throw KubeconfigError("context \"\(name)\" names cluster \"\(context.cluster)\", which is not defined", at: context.location)
        }
        let user = context.user.isEmpty ? nil : users[context.user]
        if !context.user.isEmpty, user == nil {
            throw KubeconfigError("context \"\(name)\" names user \"\(context.user)\", which is not defined", at: context.location)
        }
        var tls = TLSConfiguration(insecureSkipVerify: cluster.insecureSkipTLSVerify)
        tls.certificateAuthorityPEM = try Self.bytes(cluster.certificateAuthorityData, cluster.certificateAuthority, key: "certificate-authority", at: cluster.location)
        var credentials = ClusterConnection.Credentials.none
        if let user {
            tls.clientCertificatePEM = try Self.bytes(user.clientCertificateData, user.clientCertificate, key: "client-certificate", at: user.location)
            tls.clientKeyPEM = try Self.bytes(user.clientKeyData, user.clientKey, key: "client-key", at: user.location)
            if (tls.clientCertificatePEM == nil) != (tls.clientKeyPEM == nil) {
                throw KubeconfigError("user \"\(context.user)\" has a client certificate without a key, or a key without a certificate", at: user.location)
            }
            if let token = user.token {
                credentials = .token(token)
            } else if let file = user.tokenFile {
                credentials = .tokenFile(file)
            } else if let exec = user.exec {
                credentials = .exec(exec)
            }
        }
        return ClusterConnection(
            context: name, server: cluster.server, tls: tls, credentials: credentials, namespace: context.namespace ?? "default"
        )
    }

    /// `-data` wins over the file, as in kubectl; a file that cannot be read is an error naming the key.
    private static func bytes(_ data: [UInt8]?, _ path: String?, key: String, at location: SourceLocation) throws(KubeconfigError) -> [UInt8]? {
        if let data { return data }
        guard let path else { return nil }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw KubeconfigError("\(key) file \(path) cannot be read", at: location)
        }
        return Array(contents)
    }

    private func suggestion(_ name: String, _ names: [String]) -> String {
        names.isEmpty ? "; the kubeconfig defines no contexts" : "; contexts: \(names.joined(separator: ", "))"
    }
}
