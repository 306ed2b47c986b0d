public import MCloudCrypto

/// The Ed25519 key that signs a database cell's switchover orders: derived from the root (kind `switchoverKey`, the
/// cell, no service), never stored; the cell's members hold only its public key, so whoever can write the DR bucket
/// the orders travel through cannot make a member demote or promote itself.
public enum SwitchoverKey {
    public static func derive(root: SecretRoot, application: String, cell: String, generation: UInt32 = 1) throws(SecretsError) -> Ed25519Key {
        let purpose = SecretPurpose(application: application, cell: cell, service: "", kind: .switchoverKey, generation: generation)
        let seed = try root.keyMaterial(for: purpose)
        do throws(CryptoError) {
            return try Ed25519Key(seed: seed)
        } catch {
            throw .crypto(error)
        }
    }

    /// The public key as the members' `openssl pkeyutl -verify -pubin` reads it.
    public static func publicKeyPEM(root: SecretRoot, application: String, cell: String) throws(SecretsError) -> String {
        let key = try derive(root: root, application: application, cell: cell)
        do throws(CryptoError) {
            return try key.publicKeyPEM()
        } catch {
            throw .crypto(error)
        }
    }

    /// `document`'s signature with the cell's key, base64 on one line.
    public static func signature(root: SecretRoot, application: String, cell: String, of document: [UInt8]) throws(SecretsError) -> String {
        let key = try derive(root: root, application: application, cell: cell)
        do throws(CryptoError) {
            return Base64.encode(try key.sign(document)) + "\n"
        } catch {
            throw .crypto(error)
        }
    }
}
