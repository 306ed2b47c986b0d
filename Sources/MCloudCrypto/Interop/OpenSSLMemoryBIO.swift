internal import COpenSSL

/// A memory `BIO` that PEM writers fill and readers read, owned by this value.
final class OpenSSLMemoryBIO {
    let bio: OpaquePointer

    init() throws(CryptoError) {
        guard let bio = BIO_new(BIO_s_mem()) else { throw .library(operation: "BIO_new") }
        self.bio = bio
    }

    deinit {
        BIO_free(bio)
    }

    /// What was written; `BIO_get_mem_data` is a macro over `BIO_ctrl`.
    var text: String {
        var pointer: UnsafeMutablePointer<CChar>?
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &pointer)
        guard let pointer, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }
}
