public import Foundation
import MCloudCore

/// Who holds a state lock: what the lock file says, so a second mcloud can tell the user whom it is waiting for.
public struct LockInfo: Sendable, Hashable {
    /// Random per lock; `mcloud state force-unlock ID` must name it, so a lock is never broken by mistake.
    public var id: String
    public var pid: Int32
    public var host: String
    /// The command that took the lock, such as `apply`.
    public var operation: String
    /// The user the holding process runs as.
    public var who: String
    public var created: Date

    public init(id: String, pid: Int32, host: String, operation: String, who: String, created: Date) {
        self.id = id
        self.pid = pid
        self.host = host
        self.operation = operation
        self.who = who
        self.created = created
    }

    /// A new lock for `operation` taken by `identity`, with a random ID; the time is in whole seconds, so the value
    /// equals what a lock file or row says.
    init(operation: String, identity: ProcessIdentity) {
        self.init(
            id: UUID().uuidString.lowercased(), pid: identity.pid, host: identity.host, operation: operation, who: identity.user,
            created: Date(timeIntervalSince1970: identity.now().timeIntervalSince1970.rounded(.down))
        )
    }

    /// One line naming the holder, for error messages.
    public var summary: String {
        "`\(operation)` (lock ID \(id), pid \(pid) on host \(host), user \(who), since \(Self.timestamp(created)))"
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

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }
}
