import CZlib

/// zlib's deflate and inflate over whole buffers, with the gzip wrapper (window bits 15 + 16).
enum Deflate {
    static func gzip(_ input: [UInt8]) throws(CompressionError) -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw CompressionError("zlib could not start a gzip stream")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 32)
        let result = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { throw CompressionError("zlib could not compress \(input.count) bytes (deflate returned \(result))") }
        return Array(output.prefix(Int(stream.total_out)))
    }

    static func gunzip(_ input: [UInt8], limit: Int) throws(CompressionError) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw CompressionError("zlib could not start reading a gzip stream")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var result: Int32 = Z_OK
        try input.withUnsafeBufferPointer { (source: UnsafeBufferPointer<UInt8>) throws(CompressionError) in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = UInt32(source.count)
            while result != Z_STREAM_END {
                let produced = chunk.withUnsafeMutableBufferPointer { target -> Int in
                    stream.next_out = target.baseAddress
                    stream.avail_out = UInt32(target.count)
                    result = inflate(&stream, Z_NO_FLUSH)
                    return target.count - Int(stream.avail_out)
                }
                guard result == Z_OK || result == Z_STREAM_END else {
                    throw CompressionError(result == Z_BUF_ERROR ? "the gzip stream ends early" : "not a gzip stream zlib can read (inflate returned \(result))")
                }
                output += chunk.prefix(produced)
                guard output.count <= limit else { throw CompressionError("the gzip stream gives more than \(limit) bytes") }
                if produced == 0, stream.avail_in == 0, result != Z_STREAM_END { throw CompressionError("the gzip stream ends early") }
            }
        }
        return output
    }
}
