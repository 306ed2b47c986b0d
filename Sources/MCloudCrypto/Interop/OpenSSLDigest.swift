internal import COpenSSL

/// One-shot digests and HMAC on OpenSSL's EVP interface.
enum OpenSSLDigest {
    enum Algorithm {
        case sha1, sha256, sha512, md5

        var evp: OpaquePointer? {
            switch self {
            case .sha1: return EVP_sha1()
            case .sha256: return EVP_sha256()
            case .sha512: return EVP_sha512()
            case .md5: return EVP_md5()
            }
        }
    }

    static func digest(_ input: [UInt8], _ algorithm: Algorithm) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = input.withUnsafeBufferPointer { data in
            output.withUnsafeMutableBufferPointer { out in
                EVP_Digest(data.baseAddress, data.count, out.baseAddress, &length, algorithm.evp, nil)
            }
        }
        // EVP_Digest fails only on allocation failure; an empty digest then fails every comparison made with it.
        return ok == 1 ? Array(output.prefix(Int(length))) : []
    }

    static func hmac(key: [UInt8], message: [UInt8], _ algorithm: Algorithm) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // OpenSSL reads a zero-length key through its pointer, so an empty key passes one readable byte.
        let keyBytes = key.isEmpty ? [0] : key
        let result = keyBytes.withUnsafeBufferPointer { keyPointer in
            message.withUnsafeBufferPointer { data in
                output.withUnsafeMutableBufferPointer { out in
                    COpenSSL.HMAC(algorithm.evp, keyPointer.baseAddress, Int32(key.count), data.baseAddress, data.count, out.baseAddress, &length)
                }
            }
        }
        return result == nil ? [] : Array(output.prefix(Int(length)))
    }

    static func random(_ count: Int) throws(CryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return output }
        let ok = output.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard ok == 1 else { throw .library(operation: "RAND_bytes") }
        return output
    }
}
