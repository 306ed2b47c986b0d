import Foundation
import MCloudCompression
import MCloudTestSupport
import Testing

/// gzip as cloud-init reads it: what Debian's `gzip -d` reads back byte for byte, the same bytes for the same input,
/// and what `gzip` wrote read here; a damaged, cut or oversized stream is a clear error.
@Suite struct GzipTests {
    static let text = Array((0..<2000).map { "line \($0): #cloud-config user data, repeated as scripts are\n" }.joined().utf8)

    @Test(arguments: [[], Array("x".utf8), text])
    func whatItCompressesGzipReadsBackAndSoDoesIt(_ input: [UInt8]) async throws {
        let compressed = try Gzip.compress(input)
        let again = try Gzip.compress(input)
        #expect(Gzip.isCompressed(compressed) && compressed == again)
        #expect(try Gzip.decompress(compressed) == input)
        let file = NSTemporaryDirectory() + "gzip-\(UUID().uuidString).gz"
        try Data(compressed).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let read = try await Command.run("/bin/sh", ["-c", "gzip -dc \(file) | od -An -v -tx1"])
        #expect(read.succeeded, "\(read.stderr)")
        #expect(read.stdout.split(whereSeparator: \.isWhitespace).map { UInt8($0, radix: 16) ?? 0 } == input)
    }

    @Test func userDataShrinksToAFractionAndWhatGzipWroteIsReadHere() async throws {
        let compressed = try Gzip.compress(Self.text)
        #expect(compressed.count * 10 < Self.text.count, "\(compressed.count) of \(Self.text.count)")
        let file = NSTemporaryDirectory() + "gzip-\(UUID().uuidString)"
        try Data(Self.text).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file + ".gz") }
        #expect(try await Command.run("/bin/gzip", ["-9", file]).succeeded)
        #expect(try Gzip.decompress(Array(try Data(contentsOf: URL(fileURLWithPath: file + ".gz")))) == Self.text)
    }

    @Test func aDamagedCutOrOversizedStreamIsRefused() throws {
        let compressed = try Gzip.compress(Self.text)
        #expect(throws: CompressionError.self) { try Gzip.decompress(Array(compressed.prefix(compressed.count / 2))) }
        var damaged = compressed
        damaged[20] ^= 0xFF
        #expect(throws: CompressionError.self) { try Gzip.decompress(damaged) }
        #expect(throws: CompressionError("the gzip stream gives more than 1000 bytes")) { try Gzip.decompress(compressed, limit: 1000) }
        #expect(throws: CompressionError.self) { try Gzip.decompress(Self.text) }
    }
}
