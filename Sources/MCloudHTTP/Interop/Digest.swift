internal import COpenSSL

/// SHA-256, HMAC-SHA256 and MD5 on OpenSSL: request signing (AWS SigV4) and input digests of saved plans.
public enum Digest {
    public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        digest(bytes, EVP_sha256())
    }

    /// MD5, only for `Content-MD5`, which S3 requires on some writes; never for security.
    public static func md5(_ bytes: some Collection<UInt8>) -> [UInt8] {
        digest(bytes, EVP_md5())
    }

    private static func digest(_ bytes: some Collection<UInt8>, _ algorithm: OpaquePointer?) -> [UInt8] {
        let input = Array(bytes)
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = input.withUnsafeBufferPointer { data in
            output.withUnsafeMutableBufferPointer { out in
                EVP_Digest(data.baseAddress, data.count, out.baseAddress, &length, algorithm, nil)
            }
        }
        return ok == 1 ? Array(output.prefix(Int(length))) : []
    }

    public static func hmacSHA256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        let key = Array(key)
        let message = Array(message)
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBufferPointer { keyBytes in
            message.withUnsafeBufferPointer { data in
                output.withUnsafeMutableBufferPointer { out in
                    HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count), data.baseAddress, data.count, out.baseAddress, &length)
                }
            }
        }
        return result == nil ? [] : Array(output.prefix(Int(length)))
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
