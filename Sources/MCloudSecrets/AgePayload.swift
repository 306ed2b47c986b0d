import MCloudCrypto

/// age's payload: a 16-byte nonce, then the plaintext in chunks of 64 KiB, each sealed with ChaCha20-Poly1305 under
/// HKDF(file key, salt: nonce, info "payload"), its nonce an 11-byte big-endian counter and a last-chunk flag (STREAM).
enum AgePayload {
    static let chunkCount = 64 * 1024
    static let nonceCount = 16

    static func seal(_ plaintext: [UInt8], fileKey: [UInt8], nonce: [UInt8]) throws(SecretsError) -> [UInt8] {
        let key = try payloadKey(fileKey: fileKey, nonce: nonce)
        var output = nonce
        var start = 0
        // An empty plaintext is one empty last chunk; otherwise the last chunk is never empty.
        repeat {
            let stop = min(start + chunkCount, plaintext.count)
            let last = stop == plaintext.count
            output += try sealChunk(Array(plaintext[start..<stop]), key: key, counter: UInt64(start / chunkCount), last: last)
            start = stop
        } while start < plaintext.count
        return output
    }

    static func open(_ payload: ArraySlice<UInt8>, fileKey: [UInt8]) throws(SecretsError) -> [UInt8] {
        guard payload.count >= nonceCount + AEAD.tagCount else { throw .ageFormat(reason: "the payload is shorter than its nonce and one tag") }
        let key = try payloadKey(fileKey: fileKey, nonce: Array(payload.prefix(nonceCount)))
        let sealedChunk = chunkCount + AEAD.tagCount
        var output: [UInt8] = []
        var start = payload.startIndex + nonceCount
        var counter: UInt64 = 0
        while true {
            let stop = min(start + sealedChunk, payload.endIndex)
            let last = stop == payload.endIndex
            let chunk = try openChunk(Array(payload[start..<stop]), key: key, counter: counter, last: last)
            guard !(last && chunk.isEmpty && counter > 0) else { throw .ageFormat(reason: "the payload ends with an empty chunk") }
            output += chunk
            if last { return output }
            start = stop
            counter += 1
        }
    }

    private static func payloadKey(fileKey: [UInt8], nonce: [UInt8]) throws(SecretsError) -> [UInt8] {
        do {
            return try HKDF.sha256(secret: fileKey, salt: nonce, info: Array("payload".utf8), count: 32)
        } catch {
            throw .crypto(error)
        }
    }

    private static func chunkNonce(counter: UInt64, last: Bool) -> [UInt8] {
        [0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: counter >> (8 * (7 - UInt64($0)))) } + [last ? 1 : 0]
    }

    private static func sealChunk(_ chunk: [UInt8], key: [UInt8], counter: UInt64, last: Bool) throws(SecretsError) -> [UInt8] {
        do {
            return try AEAD.chaCha20Poly1305.seal(chunk, key: key, nonce: chunkNonce(counter: counter, last: last))
        } catch {
            throw .crypto(error)
        }
    }

    private static func openChunk(_ chunk: [UInt8], key: [UInt8], counter: UInt64, last: Bool) throws(SecretsError) -> [UInt8] {
        do {
            return try AEAD.chaCha20Poly1305.open(chunk, key: key, nonce: chunkNonce(counter: counter, last: last))
        } catch {
            throw .ageFormat(reason: "payload chunk \(counter) does not authenticate")
        }
    }
}
