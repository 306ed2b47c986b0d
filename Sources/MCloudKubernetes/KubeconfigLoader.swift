import Foundation
import MCloudCore
import MCloudYAML

/// Finds and reads kubeconfig files: `KUBECONFIG` (a colon-separated list, merged: the first file to define a
/// name wins, and the first `current-context` wins) or `~/.kube/config`. Relative paths inside a file are
/// resolved against that file's folder, as kubectl does.
public enum KubeconfigLoader {
    public static func load(environment: [String: String]) throws(KubeconfigError) -> Kubeconfig {
        let paths: [String]
        if let list = environment["KUBECONFIG"], !list.isEmpty {
            paths = list.split(separator: ":").map(String.init).filter { !$0.isEmpty }
        } else if let home = environment["HOME"] {
            paths = ["\(home)/.kube/config"]
        } else {
            throw KubeconfigError("no KUBECONFIG and no HOME to find ~/.kube/config")
        }
        var merged = Kubeconfig()
        for path in paths {
            // kubectl skips files of the list that do not exist; a file that exists but is broken is an error.
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            try merge(parse(Array(data), file: path), into: &merged)
        }
        guard !merged.files.isEmpty else {
            throw KubeconfigError("no kubeconfig file found (looked at \(paths.joined(separator: ", ")))")
        }
        return merged
    }

    static func merge(_ config: Kubeconfig, into merged: inout Kubeconfig) {
        merged.clusters.merge(config.clusters) { first, _ in first }
        merged.users.merge(config.users) { first, _ in first }
        merged.contexts.merge(config.contexts) { first, _ in first }
        if merged.currentContext == nil { merged.currentContext = config.currentContext }
        merged.files += config.files
    }

    public static func parse(_ bytes: [UInt8], file: String) throws(KubeconfigError) -> Kubeconfig {
        let read = YAMLReader.read(bytes, file: file)
        if let problem = read.diagnostics.first { throw KubeconfigError(problem.message, at: problem.location, file: file) }
        var config = Kubeconfig()
        config.files = [file]
        guard let root = read.documents.first?.root else { return config }
        let reader = NodeReader(file: file)
        let top = try reader.mapping(root, "kubeconfig")
        let directory = (file as NSString).deletingLastPathComponent
        for (index, item) in try reader.list(top["clusters"], "clusters").enumerated() {
            let path = "clusters[\(index)]"
            let entry = try reader.mapping(item, path)
            let name = try reader.requiredString(entry, "name", path, item)
            guard let node = entry["cluster"] else { throw KubeconfigError("\(path).cluster is missing", at: item.location) }
            let cluster = try reader.mapping(node, "\(path).cluster")
            let server = try reader.requiredString(cluster, "server", "\(path).cluster", node)
            guard server.hasPrefix("https://") || server.hasPrefix("http://") else {
                throw KubeconfigError("\(path).cluster.server \"\(server)\" is not an http(s) URL", at: cluster["server"]?.location)
            }
            guard config.clusters[name] == nil else { continue }  // within one file, too, the first definition wins
            config.clusters[name] = Kubeconfig.Cluster(
                server: server.hasSuffix("/") ? String(server.dropLast()) : server,
                certificateAuthority: try reader.string(cluster["certificate-authority"], "\(path).cluster.certificate-authority").map { resolve($0, directory) },
                certificateAuthorityData: try reader.base64(cluster["certificate-authority-data"], "\(path).cluster.certificate-authority-data"),
                insecureSkipTLSVerify: try reader.bool(cluster["insecure-skip-tls-verify"], "\(path).cluster.insecure-skip-tls-verify") ?? false,
                location: node.location
            )
        }
        for (index, item) in try reader.list(top["users"], "users").enumerated() {
            let path = "users[\(index)]"
            let entry = try reader.mapping(item, path)
            let name = try reader.requiredString(entry, "name", path, item)
            let node = entry["user"] ?? item
            var user: [String: YAMLNode] = [:]
            if let userNode = entry["user"] { user = try reader.mapping(userNode, "\(path).user") }
            if user["auth-provider"] != nil {
                throw KubeconfigError("\(path).user.auth-provider is the removed legacy plugin mechanism; use an exec credential plugin", at: user["auth-provider"]?.location)
            }
            if user["username"] != nil || user["password"] != nil {
                throw KubeconfigError("\(path).user: basic authentication (username/password) is not supported; use a token, a client certificate or an exec plugin", at: node.location)
            }
            guard config.users[name] == nil else { continue }  // within one file, too, the first definition wins
            config.users[name] = Kubeconfig.User(
                clientCertificate: try reader.string(user["client-certificate"], "\(path).user.client-certificate").map { resolve($0, directory) },
                clientCertificateData: try reader.base64(user["client-certificate-data"], "\(path).user.client-certificate-data"),
                clientKey: try reader.string(user["client-key"], "\(path).user.client-key").map { resolve($0, directory) },
                clientKeyData: try reader.base64(user["client-key-data"], "\(path).user.client-key-data"),
                token: try reader.string(user["token"], "\(path).user.token"),
                tokenFile: try reader.string(user["tokenFile"], "\(path).user.tokenFile").map { resolve($0, directory) },
                exec: try user["exec"].map { node throws(KubeconfigError) in try exec(node, "\(path).user.exec", reader, directory) },
                location: node.location
            )
        }
        for (index, item) in try reader.list(top["contexts"], "contexts").enumerated() {
            let path = "contexts[\(index)]"
            let entry = try reader.mapping(item, path)
            let name = try reader.requiredString(entry, "name", path, item)
            guard let node = entry["context"] else { throw KubeconfigError("\(path).context is missing", at: item.location) }
            let context = try reader.mapping(node, "\(path).context")
            guard config.contexts[name] == nil else { continue }  // within one file, too, the first definition wins
            config.contexts[name] = Kubeconfig.Context(
                cluster: try reader.requiredString(context, "cluster", "\(path).context", node),
                user: try reader.string(context["user"], "\(path).context.user") ?? "",
                namespace: try reader.string(context["namespace"], "\(path).context.namespace"),
                location: node.location
            )
        }
        config.currentContext = try reader.string(top["current-context"], "current-context").flatMap { $0.isEmpty ? nil : $0 }
        return config
    }

    private static func exec(_ node: YAMLNode, _ path: String, _ reader: NodeReader, _ directory: String) throws(KubeconfigError) -> Kubeconfig.ExecConfig {
        let fields = try reader.mapping(node, path)
        let apiVersion = try reader.requiredString(fields, "apiVersion", path, node)
        guard ExecCredentialPlugin.supportedVersions.contains(apiVersion) else {
            throw KubeconfigError("\(path).apiVersion \"\(apiVersion)\" is not supported; use client.authentication.k8s.io/v1 or v1beta1", at: fields["apiVersion"]?.location)
        }
        var command = try reader.requiredString(fields, "command", path, node)
        // A command with a slash is a path, relative to the kubeconfig; a bare name is looked up on PATH.
        if command.contains("/") { command = resolve(command, directory) }
        var env: [String: String] = [:]
        for (index, item) in try reader.list(fields["env"], "\(path).env").enumerated() {
            let variable = try reader.mapping(item, "\(path).env[\(index)]")
            env[try reader.requiredString(variable, "name", "\(path).env[\(index)]", item)] = try reader.string(variable["value"], "\(path).env[\(index)].value") ?? ""
        }
        return Kubeconfig.ExecConfig(
            apiVersion: apiVersion, command: command,
            args: try reader.list(fields["args"], "\(path).args").enumerated().map { index, item throws(KubeconfigError) in
                try reader.string(item, "\(path).args[\(index)]") ?? ""
            },
            env: env, installHint: try reader.string(fields["installHint"], "\(path).installHint")
        )
    }

    static func resolve(_ path: String, _ directory: String) -> String {
        path.hasPrefix("/") || directory.isEmpty ? path : "\(directory)/\(path)"
    }
}

/// Typed access to kubeconfig nodes, each failure naming the key and its position.
struct NodeReader {
    let file: String

    func mapping(_ node: YAMLNode, _ path: String) throws(KubeconfigError) -> [String: YAMLNode] {
        if case .null = node.scalar?.resolved { return [:] }
        guard let pairs = node.mapping else { throw KubeconfigError("\(path) must be a mapping, found \(node.kindDescription)", at: node.location) }
        var result: [String: YAMLNode] = [:]
        for pair in pairs {
            if let key = pair.key.scalar?.value, result[key] == nil { result[key] = pair.value }
        }
        return result
    }

    func list(_ node: YAMLNode?, _ path: String) throws(KubeconfigError) -> [YAMLNode] {
        guard let node else { return [] }
        if case .null = node.scalar?.resolved { return [] }
        guard let items = node.sequence else { throw KubeconfigError("\(path) must be a list, found \(node.kindDescription)", at: node.location) }
        return items
    }

    /// kubeconfig values are Go strings: a plain `123` token is still a string, so no YAML typing applies.
    func string(_ node: YAMLNode?, _ path: String) throws(KubeconfigError) -> String? {
        guard let node else { return nil }
        guard let scalar = node.scalar else { throw KubeconfigError("\(path) must be a string, found \(node.kindDescription)", at: node.location) }
        if case .null = scalar.resolved { return nil }
        return scalar.value
    }

    func requiredString(_ fields: [String: YAMLNode], _ key: String, _ path: String, _ parent: YAMLNode) throws(KubeconfigError) -> String {
        guard let value = try string(fields[key], "\(path).\(key)"), !value.isEmpty else {
            throw KubeconfigError("\(path).\(key) is missing", at: fields[key]?.location ?? parent.location)
        }
        return value
    }

    func bool(_ node: YAMLNode?, _ path: String) throws(KubeconfigError) -> Bool? {
        guard let node else { return nil }
        guard case .bool(let value) = node.scalar?.resolved else {
            throw KubeconfigError("\(path) must be true or false", at: node.location)
        }
        return value
    }

    func base64(_ node: YAMLNode?, _ path: String) throws(KubeconfigError) -> [UInt8]? {
        guard let text = try string(node, path) else { return nil }
        guard let data = Data(base64Encoded: text.filter { !$0.isWhitespace }) else {
            throw KubeconfigError("\(path) is not valid base64", at: node?.location)
        }
        return Array(data)
    }
}
