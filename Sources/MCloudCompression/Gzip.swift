/// gzip (RFC 1952) at the highest compression level: what cloud-init reads as compressed user data.
public enum Gzip {
    public static func compress(_ bytes: [UInt8]) throws(CompressionError) -> [UInt8] {
        try Deflate.gzip(bytes)
    }

    /// At most `limit` bytes out: a stream that would give more is refused, not read on.
    public static func decompress(_ bytes: [UInt8], limit: Int = 16 << 20) throws(CompressionError) -> [UInt8] {
        try Deflate.gunzip(bytes, limit: limit)
    }

    /// Whether `bytes` start as a gzip stream does (its magic number).
    public static func isCompressed(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }
}

public struct CompressionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
