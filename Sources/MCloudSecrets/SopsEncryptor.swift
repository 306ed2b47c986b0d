public import Foundation
import MCloudCrypto
import MCloudYAML

/// Writes a Kubernetes Secret as the SOPS document Flux's kustomize-controller decrypts: the values under `data` and
/// `stringData` encrypted (`encrypted_regex`), the 32-byte data key in an armored age file per recipient, and the MAC
/// (SHA-512 over every value in document order, encrypted with `lastmodified` as associated data), all as sops's
/// sops.go, aes/cipher.go and age/keysource.go do.
///
/// Deterministic where sops is random: the data key comes from the root and a digest of the whole Secret and the
/// recipients, each IV from the data key, the value's path and the value, so the same input gives the same document;
/// `lastModified` is the caller's, never the clock's.
public struct SopsEncryptor: Sendable {
    /// The sops release whose format this follows; written to `sops.version`.
    public static let version = "3.8.1"
    public static let encryptedRegex = "^(data|stringData)$"
    static let dataKeyCount = 32
    static let ivCount = 32

    let root: SecretRoot
    let recipients: [AgeRecipient]

    /// Encrypts to `recipients` (the clusters' keys) and always to the root's own recipient too, so the operator can read
    /// back every document rendered.
    public init(root: SecretRoot, recipients: [AgeRecipient]) {
        self.root = root
        self.recipients = Array(Set(recipients + [root.recipient])).sorted()
    }

    public func encrypt(_ secret: KubernetesSecret, lastModified: Date) throws(SecretsError) -> String {
        try secret.validate()
        let timestamp = Self.timestamp(lastModified)
        let entries = secret.stringData.sorted { $0.key < $1.key }
        let dataKey = try root.derive(
            DerivationLabel(.sops, ["data key"]), salt: SHA2.sha256(Self.content(secret, entries: entries, recipients: recipients).bytes), count: Self.dataKeyCount
        )
        // The MAC covers every value, encrypted or not, in the order they are written (sops's Tree.Encrypt).
        var macInput = Array("v1".utf8) + Array("Secret".utf8) + Array(secret.name.utf8) + Array(secret.namespace.utf8) + Array(secret.type.utf8)
        var encrypted: [(String, YAMLNode)] = []
        for (key, value) in entries {
            macInput += Array(value.utf8)
            encrypted.append((key, .string(try Self.seal(value, dataKey: dataKey, path: "stringData:\(key):"))))
        }
        let mac = Hex.uppercase(SHA2.sha512(macInput))
        let ageEncryptor = AgeEncryptor(root: root)
        var ageEntries: [YAMLNode] = []
        for recipient in recipients {
            let file = try ageEncryptor.encrypt(dataKey, to: [recipient])
            ageEntries.append(.map([("recipient", .string(recipient.encoded)), ("enc", .string(String(decoding: file, as: UTF8.self)))]))
        }
        let document = YAMLNode.map([
            ("apiVersion", .string("v1")),
            ("kind", .string("Secret")),
            ("metadata", .map([("name", .string(secret.name)), ("namespace", .string(secret.namespace))])),
            ("type", .string(secret.type)),
            ("stringData", .map(encrypted)),
            (
                "sops",
                .map([
                    ("age", .list(ageEntries)),
                    ("lastmodified", .string(timestamp)),
                    ("mac", .string(try Self.seal(mac, dataKey: dataKey, path: timestamp))),
                    ("encrypted_regex", .string(Self.encryptedRegex)),
                    ("version", .string(Self.version)),
                ])
            ),
        ])
        do {
            return try YAMLEmitter.emit(document)
        } catch {
            throw .invalidInput(reason: "cannot write the SOPS document of \(secret.namespace)/\(secret.name): \(error.description)")
        }
    }

    /// RFC 3339 in UTC to the second, as sops writes `lastmodified` and as it formats it again for the MAC's data.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// Everything the document depends on but the time, length-prefixed.
    static func content(_ secret: KubernetesSecret, entries: [(key: String, value: String)], recipients: [AgeRecipient]) -> DerivationLabel {
        DerivationLabel(.sops, [secret.name, secret.namespace, secret.type] + entries.flatMap { [$0.key, $0.value] } + recipients.map(\.encoded))
    }

    /// One value, under `path` as associated data (`stringData:password:`, or `lastmodified` for the MAC).
    static func seal(_ value: String, dataKey: [UInt8], path: String) throws(SecretsError) -> String {
        guard !value.isEmpty else { return "" }
        let iv = HMAC.sha256(key: dataKey, message: DerivationLabel(.sops, ["iv", path, value]).bytes)
        do {
            let sealed = try AEAD.aes256GCM.seal(Array(value.utf8), key: dataKey, nonce: iv, authenticating: Array(path.utf8))
            return SopsValue(ciphertext: Array(sealed.dropLast(AEAD.tagCount)), iv: iv, tag: Array(sealed.suffix(AEAD.tagCount)), type: "str").encoded
        } catch {
            throw .crypto(error)
        }
    }
}
