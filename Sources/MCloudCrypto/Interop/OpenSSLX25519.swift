internal import COpenSSL

/// X25519 on OpenSSL's raw-key `EVP_PKEY`s, each owned by one value and freed in `deinit`.
final class OpenSSLX25519Key {
    let key: OpaquePointer

    init(privateKey: [UInt8]) throws(CryptoError) {
        guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nil, privateKey, privateKey.count) else {
            throw .library(operation: "EVP_PKEY_new_raw_private_key")
        }
        self.key = key
    }

    init(publicKey: [UInt8]) throws(CryptoError) {
        guard let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, publicKey, publicKey.count) else {
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

    func sharedSecret(with peer: OpenSSLX25519Key) throws(CryptoError) -> [UInt8] {
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
}
