import MCloudCrypto
import MCloudYAML

/// Reads a SOPS document back with an age identity: the data key from the first `sops.age` entry the identity opens,
/// every value decrypted under its path, and the MAC recomputed over every value in document order and compared,
/// as sops's Tree.Decrypt does. Only documents with `encrypted_regex` are read (what `SopsEncryptor` writes).
public struct SopsDecryptor: Sendable {
    let identity: AgeIdentity

    public init(identity: AgeIdentity) {
        self.identity = identity
    }

    public func decrypt(_ document: String) throws(SecretsError) -> KubernetesSecret {
        let read = YAMLReader.read(document, file: "<sops>")
        guard read.diagnostics.isEmpty, read.documents.count == 1, let root = read.documents.first?.root, let pairs = root.mapping else {
            throw .sopsFormat(reason: "the document is not one YAML mapping")
        }
        guard let metadata = root["sops"] else { throw .sopsFormat(reason: "the document has no sops key") }
        guard let pattern = metadata["encrypted_regex"]?.scalar?.value, let regex = try? Regex(pattern) else {
            throw .sopsFormat(reason: "sops.encrypted_regex is missing or not a regular expression")
        }
        guard let lastModified = metadata["lastmodified"]?.scalar?.value, let mac = metadata["mac"]?.scalar?.value else {
            throw .sopsFormat(reason: "sops.lastmodified or sops.mac is missing")
        }
        let dataKey = try self.dataKey(metadata)
        var walk = Walk(dataKey: dataKey, regex: regex)
        var values: [String: YAMLNode] = [:]
        for pair in pairs {
            guard let key = pair.key.scalar?.value, key != "sops" else { continue }
            values[key] = try walk.visit(pair.value, path: [key])
        }
        let expected = try Self.open(mac, dataKey: dataKey, path: lastModified)
        guard expected == Hex.uppercase(SHA2.sha512(walk.macInput)) else { throw .sopsFormat(reason: "the MAC does not match the values") }
        return try secret(values)
    }

    private func dataKey(_ metadata: YAMLNode) throws(SecretsError) -> [UInt8] {
        let decryptor = AgeDecryptor(identity: identity)
        for entry in metadata["age"]?.sequence ?? [] {
            guard let enc = entry["enc"]?.scalar?.value else { continue }
            do {
                return try decryptor.decrypt(Array(enc.utf8))
            } catch .noMatchingIdentity {
                continue
            }
        }
        throw .noMatchingIdentity
    }

    private func secret(_ values: [String: YAMLNode]) throws(SecretsError) -> KubernetesSecret {
        guard values["apiVersion"]?.scalar?.value == "v1", values["kind"]?.scalar?.value == "Secret",
            let name = values["metadata"]?["name"]?.scalar?.value, let namespace = values["metadata"]?["namespace"]?.scalar?.value
        else { throw .sopsFormat(reason: "the document is not a v1 Secret with a name and a namespace") }
        var data: [String: String] = [:]
        for pair in values["stringData"]?.mapping ?? [] {
            guard let key = pair.key.scalar?.value, let value = pair.value.scalar?.value else { throw .sopsFormat(reason: "stringData holds a value that is not a string") }
            data[key] = value
        }
        return KubernetesSecret(name: name, namespace: namespace, type: values["type"]?.scalar?.value ?? "Opaque", stringData: data)
    }

    static func open(_ text: String, dataKey: [UInt8], path: String) throws(SecretsError) -> String {
        guard !text.isEmpty else { return "" }
        let value = try SopsValue(parsing: text, at: path)
        guard value.type == "str" else { throw .sopsFormat(reason: "\(path) is of type \(value.type); only str is read") }
        do {
            return String(decoding: try AEAD.aes256GCM.open(value.ciphertext + value.tag, key: dataKey, nonce: value.iv, authenticating: Array(path.utf8)), as: UTF8.self)
        } catch {
            throw .sopsFormat(reason: "\(path) does not decrypt with the data key")
        }
    }

    /// sops's walk of the tree: a value is encrypted when any key on its path matches the regex; every value, as its
    /// plaintext, goes into the MAC.
    private struct Walk {
        let dataKey: [UInt8]
        let regex: Regex<AnyRegexOutput>
        var macInput: [UInt8] = []

        mutating func visit(_ node: YAMLNode, path: [String]) throws(SecretsError) -> YAMLNode {
            switch node.content {
            case .mapping(let pairs):
                var output: [(String, YAMLNode)] = []
                for pair in pairs {
                    guard let key = pair.key.scalar?.value else { throw .sopsFormat(reason: "a key under \(path.joined(separator: ".")) is not a scalar") }
                    output.append((key, try visit(pair.value, path: path + [key])))
                }
                return .map(output)
            case .sequence(let items):
                var output: [YAMLNode] = []
                for item in items { output.append(try visit(item, path: path)) }
                return .list(output)
            case .scalar(let scalar):
                var value = scalar.value
                if path.contains(where: { $0.firstMatch(of: regex) != nil }) {
                    value = try SopsDecryptor.open(value, dataKey: dataKey, path: path.joined(separator: ":") + ":")
                }
                macInput += Array(value.utf8)
                return .string(value)
            }
        }
    }
}
