internal import COpenSSL

/// An AEAD seal or open on one `EVP_CIPHER_CTX`, which this value owns and frees.
final class OpenSSLCipher {
    enum Algorithm {
        case chacha20Poly1305, aes256GCM

        var evp: OpaquePointer? {
            switch self {
            case .chacha20Poly1305: return EVP_chacha20_poly1305()
            case .aes256GCM: return EVP_aes_256_gcm()
            }
        }
    }

    private let context: OpaquePointer

    private init() throws(CryptoError) {
        guard let context = EVP_CIPHER_CTX_new() else { throw .library(operation: "EVP_CIPHER_CTX_new") }
        self.context = context
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
    }

    /// The ciphertext followed by the 16-byte tag.
    static func seal(_ algorithm: Algorithm, key: [UInt8], nonce: [UInt8], plaintext: [UInt8], authenticating aad: [UInt8]) throws(CryptoError) -> [UInt8] {
        let cipher = try OpenSSLCipher()
        try cipher.start(algorithm, encrypting: true, key: key, nonce: nonce)
        try cipher.update(aad: aad)
        var output = try cipher.update(plaintext)
        var length: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 32)
        guard EVP_EncryptFinal_ex(cipher.context, &scratch, &length) == 1 else { throw .library(operation: "EVP_EncryptFinal_ex") }
        output += scratch.prefix(Int(length))
        var tag = [UInt8](repeating: 0, count: AEAD.tagCount)
        guard EVP_CIPHER_CTX_ctrl(cipher.context, EVP_CTRL_AEAD_GET_TAG, Int32(AEAD.tagCount), &tag) == 1 else {
            throw .library(operation: "EVP_CTRL_AEAD_GET_TAG")
        }
        return output + tag
    }

    /// The plaintext of `sealed` (ciphertext then tag), or `.authenticationFailed`.
    static func open(_ algorithm: Algorithm, key: [UInt8], nonce: [UInt8], sealed: [UInt8], authenticating aad: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard sealed.count >= AEAD.tagCount else { throw .authenticationFailed }
        let cipher = try OpenSSLCipher()
        try cipher.start(algorithm, encrypting: false, key: key, nonce: nonce)
        try cipher.update(aad: aad)
        var output = try cipher.update(Array(sealed.dropLast(AEAD.tagCount)))
        var tag = Array(sealed.suffix(AEAD.tagCount))
        guard EVP_CIPHER_CTX_ctrl(cipher.context, EVP_CTRL_AEAD_SET_TAG, Int32(AEAD.tagCount), &tag) == 1 else {
            throw .library(operation: "EVP_CTRL_AEAD_SET_TAG")
        }
        var length: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 32)
        guard EVP_DecryptFinal_ex(cipher.context, &scratch, &length) == 1 else { throw .authenticationFailed }
        output += scratch.prefix(Int(length))
        return output
    }

    private func start(_ algorithm: Algorithm, encrypting: Bool, key: [UInt8], nonce: [UInt8]) throws(CryptoError) {
        let mode: Int32 = encrypting ? 1 : 0
        guard EVP_CipherInit_ex(context, algorithm.evp, nil, nil, nil, mode) == 1 else { throw .library(operation: "EVP_CipherInit_ex") }
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonce.count), nil) == 1 else {
            throw .library(operation: "EVP_CTRL_AEAD_SET_IVLEN")
        }
        guard EVP_CipherInit_ex(context, nil, nil, key, nonce, mode) == 1 else { throw .library(operation: "EVP_CipherInit_ex") }
    }

    private func update(aad: [UInt8]) throws(CryptoError) {
        guard !aad.isEmpty else { return }
        var length: Int32 = 0
        guard EVP_CipherUpdate(context, nil, &length, aad, Int32(aad.count)) == 1 else { throw .library(operation: "EVP_CipherUpdate") }
    }

    private func update(_ input: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard !input.isEmpty else { return [] }
        var output = [UInt8](repeating: 0, count: input.count + 32)
        var length: Int32 = 0
        guard EVP_CipherUpdate(context, &output, &length, input, Int32(input.count)) == 1 else { throw .library(operation: "EVP_CipherUpdate") }
        return Array(output.prefix(Int(length)))
    }
}
