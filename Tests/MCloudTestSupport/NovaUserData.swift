import MCloudCompression
import Foundation

/// The user data a server was created with, as Nova hands it to the admin (`OS-EXT-SRV-ATTR:user_data`, base64):
/// gzip, as the providers send it, within Nova's 65,535 characters of base64.
public enum NovaUserData {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The bytes the server boots with.
    public static func bytes(base64 encoded: String) throws -> [UInt8] {
        guard encoded.utf8.count <= 65535 else { throw Failure(description: "Nova holds \(encoded.utf8.count) characters of base64 user data: above its 65,535") }
        guard let data = Data(base64Encoded: encoded) else { throw Failure(description: "the user data Nova holds is not base64") }
        let bytes = Array(data)
        guard Gzip.isCompressed(bytes) else { throw Failure(description: "the user data Nova holds is not gzip") }
        return bytes
    }

    /// The cloud-config they hold, to read.
    public static func text(base64 encoded: String) throws -> String {
        String(decoding: try Gzip.decompress(try bytes(base64: encoded)), as: UTF8.self)
    }
}
