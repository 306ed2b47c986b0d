import Foundation
import MCloudCore
import MCloudProvider

extension LockInfo {
    /// A new lock for `operation` taken by `identity`, with a random ID; the time is in whole seconds, so the value
    /// equals what a lock file or row says.
    init(operation: String, identity: ProcessIdentity) {
        self.init(
            id: UUID().uuidString.lowercased(), pid: identity.pid, host: identity.host, operation: operation, who: identity.user,
            created: Date(timeIntervalSince1970: identity.now().timeIntervalSince1970.rounded(.down))
        )
    }

    var json: JSONValue {
        .object([
            ("id", .string(id)),
            ("pid", .int(Int(pid))),
            ("host", .string(host)),
            ("operation", .string(operation)),
            ("who", .string(who)),
            ("created", .string(Self.timestamp(created))),
        ])
    }

    /// Reads a lock file's contents; the error says which field is wrong.
    static func parse(_ bytes: [UInt8]) throws(FieldReader.Failure) -> LockInfo {
        let reader = try FieldReader.document(bytes)
        try reader.allowOnly(["id", "pid", "host", "operation", "who", "created"])
        let pid = try reader.int("pid")
        guard let pid32 = Int32(exactly: pid), pid32 > 0 else { throw reader.failure("pid", "\(pid) is not a process ID") }
        let createdText = try reader.string("created")
        guard let created = try? Date.ISO8601FormatStyle().parse(createdText) else {
            throw reader.failure("created", "\"\(createdText)\" is not an ISO 8601 time")
        }
        return LockInfo(
            id: try reader.string("id"), pid: pid32, host: try reader.string("host"), operation: try reader.string("operation"),
            who: try reader.string("who"), created: created
        )
    }
}
