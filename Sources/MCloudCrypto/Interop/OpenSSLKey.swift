internal import COpenSSL

/// An X25519 or Ed25519 key as an OpenSSL raw-key `EVP_PKEY`, owned by this value and freed in `deinit`.
final class OpenSSLKey {
    enum Kind {
        case x25519, ed25519

        var type: Int32 {
            switch self {
            case .x25519: return EVP_PKEY_X25519
            case .ed25519: return EVP_PKEY_ED25519
            }
        }
    }

    let key: OpaquePointer

    init(_ kind: Kind, privateKey: [UInt8]) throws(CryptoError) {
        guard let key = EVP_PKEY_new_raw_private_key(kind.type, nil, privateKey, privateKey.count) else {
            throw .library(operation: "EVP_PKEY_new_raw_private_key")
        }
        self.key = key
    }

    init(_ kind: Kind, publicKey: [UInt8]) throws(CryptoError) {
        guard let key = EVP_PKEY_new_raw_public_key(kind.type, nil, publicKey, publicKey.count) else {
            throw .library(operation: "EVP_PKEY_new_raw_public_key")
        }
        self.key = key
    }

    deinit {
        EVP_PKEY_free(key)
    }

    func publicKey() throws(CryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length = output.count
        guard EVP_PKEY_get_raw_public_key(key, &output, &length) == 1, length == 32 else {
            throw .library(operation: "EVP_PKEY_get_raw_public_key")
        }
        return output
    }

    /// X25519 with `peer`'s public key.
    func sharedSecret(with peer: OpenSSLKey) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new(key, nil) else { throw .library(operation: "EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else { throw .library(operation: "EVP_PKEY_derive_init") }
        guard EVP_PKEY_derive_set_peer(context, peer.key) == 1 else { throw .library(operation: "EVP_PKEY_derive_set_peer") }
        var output = [UInt8](repeating: 0, count: 32)
        var length = output.count
        // OpenSSL refuses a small-order peer here, as it would give the all-zero secret.
        guard EVP_PKEY_derive(context, &output, &length) == 1, length == 32 else { throw .lowOrderPoint }
        return output
    }

    /// An Ed25519 signature; Ed25519 signs the message itself (no digest first), so the context is given no digest.
    func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .library(operation: "EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1 else { throw .library(operation: "EVP_DigestSignInit") }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = signature.count
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1, length == 64 else {
            throw .library(operation: "EVP_DigestSign")
        }
        return signature
    }

    /// The SubjectPublicKeyInfo PEM of the public key, as `openssl pkeyutl -verify -pubin` reads it.
    func publicKeyPEM() throws(CryptoError) -> String {
        let bio = try OpenSSLMemoryBIO()
        guard PEM_write_bio_PUBKEY(bio.bio, key) == 1 else { throw .library(operation: "PEM_write_bio_PUBKEY") }
        return bio.text
    }

    /// The PKCS #8 PEM of the private key, as servers read it.
    func privateKeyPEM() throws(CryptoError) -> String {
        let bio = try OpenSSLMemoryBIO()
        guard PEM_write_bio_PrivateKey(bio.bio, key, nil, nil, 0, nil, nil) == 1 else { throw .library(operation: "PEM_write_bio_PrivateKey") }
        return bio.text
    }
}
