public import Foundation
public import MCloudCore
import MCloudDatabaseEngines
public import MCloudSecrets

/// How `render` writes the connection Secrets: each one's values derived from the operator's root (`ClientAccess`,
/// the derivation the IaaS providers use for the server's verifiers), then written only as a SOPS document encrypted
/// to the operator's own recipient and, when the catalog gives one, the cluster's (`endpoints.kubernetes.ageRecipient`).
public struct SecretSealing: Sendable {
    /// 2026-01-01T00:00:00Z, the scheme's epoch (`ApplicationCA.notBefore`): `lastmodified` when the input names no
    /// time of its own.
    public static let epoch = Date(timeIntervalSince1970: TimeInterval(ApplicationCA.notBefore))

    let root: SecretRoot
    let lastModified: Date
    /// By cloud: the clusters' recipients from the catalog.
    let recipients: [String: AgeRecipient]

    /// `lastModified` is the input's time, never the clock's, so the same input gives the same bytes. A catalog
    /// recipient whose checksum fails is an error naming its cloud and position.
    public init(identity: AgeIdentity, clouds: [Cloud], lastModified: Date = epoch) throws(SecretsError) {
        root = SecretRoot(identity: identity)
        self.lastModified = lastModified
        var recipients: [String: AgeRecipient] = [:]
        for cloud in clouds {
            guard let text = cloud.endpoints.kubernetesAgeRecipient else { continue }
            do {
                recipients[cloud.name] = try AgeRecipient(parsing: text)
            } catch {
                throw .invalidInput(reason: "\(cloud.location): cloud \(cloud.name): endpoints.kubernetes.ageRecipient is \(error.description)")
            }
        }
        self.recipients = recipients
    }

    /// The Secret's file in its cluster's folder.
    func file(_ secret: ConnectionSecret) throws(SecretsError) -> RenderedTree.File {
        let access = try ClientAccess(root: root, edge: secret.edge)
        let encryptor = SopsEncryptor(root: root, recipients: recipients[secret.cloud].map { [$0] } ?? [])
        let document = try encryptor.encrypt(
            KubernetesSecret(name: secret.name, namespace: secret.namespace, stringData: access.stringData), lastModified: lastModified
        )
        return RenderedTree.File(path: "clusters/\(secret.cloud)/\(secret.path)", contents: document)
    }
}
