public import MCloudProvider
import Foundation

/// Where `--state` points: `file://PATH` or a plain path for the file backend, `postgres://…` for the team backend.
public enum StateURL: Sendable, Equatable {
    case file(path: String)
    /// The connection URL as given; it may hold a password, so it never appears in a message.
    case postgres(connection: String)

    public static let `default` = StateURL.file(path: FileStateBackend.defaultPath)

    public init(parsing text: String) throws(StateError) {
        guard !text.isEmpty else { throw .invalidURL("it is empty; use file://PATH or postgres://...") }
        guard let separator = text.range(of: "://") else {
            self = .file(path: text)
            return
        }
        let scheme = text[..<separator.lowerBound].lowercased()
        switch scheme {
        case "file":
            let encoded = String(text[separator.upperBound...])
            guard !encoded.isEmpty else { throw .invalidURL("file:// needs a path, such as file://\(FileStateBackend.defaultPath)") }
            guard let path = encoded.removingPercentEncoding else { throw .invalidURL("file://\(encoded) has a malformed %-escape") }
            self = .file(path: path)
        case "postgres", "postgresql":
            self = .postgres(connection: text)
        default:
            throw .invalidURL("unknown backend \"\(scheme)\"; mcloud keeps state in file://PATH or postgres://...")
        }
    }

    /// The backend this URL names.
    public func backend(identity: ProcessIdentity = .current) throws(StateError) -> any StateBackend {
        switch self {
        case .file(let path): return FileStateBackend(path: path, identity: identity)
        case .postgres(let connection): return try PostgresStateBackend(url: connection, identity: identity)
        }
    }
}
