import MCloudProvider
import CPostgres
import Foundation

/// One libpq connection: opened from a `PostgresURL`, closed in `deinit` (which ends the server session and so
/// releases its session-level advisory locks). Every statement goes through `query`, with its values sent as
/// parameters, never spliced into the SQL. Not thread-safe, like the `PGconn` it owns: its owner serializes use.
final class PostgresConnection {
    private let handle: OpaquePointer
    private let url: PostgresURL

    /// Connects, with a 10 s connect timeout unless the URL sets one; libpq brings SCRAM, TLS (`sslmode`), several
    /// hosts and `.pgpass`. Its messages are scrubbed of the URL's secrets before they reach an error.
    init(_ url: PostgresURL) throws(StateError) {
        self.url = url
        // The expanded URL overrides the keywords before it; `dbname` must be the first occurrence to be expanded.
        let keywords = ["connect_timeout", "fallback_application_name", "dbname"]
        let values = ["10", "mcloud", url.connectionString]
        let connection = Self.withCStrings(keywords) { keywordPointers in
            Self.withCStrings(values) { valuePointers in PQconnectdbParams(keywordPointers, valuePointers, 1) }
        }
        guard let connection else {
            throw .database(source: url.source, operation: "connect", message: "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.text(PQerrorMessage(connection))
            PQfinish(connection)
            throw .database(source: url.source, operation: "connect", message: url.scrub(message))
        }
        // NOTICEs (such as "relation already exists, skipping") would go to stderr; a library does not print.
        PQsetNoticeReceiver(connection, { _, _ in }, nil)
        handle = connection
    }

    deinit {
        PQfinish(handle)
    }

    /// True once the server session is gone (terminated, network lost): the connection is of no further use.
    var isBroken: Bool {
        PQstatus(handle) != CONNECTION_OK
    }

    /// Runs one statement with text parameters (nil is SQL NULL) and returns its rows as text (nil for NULL).
    /// `purpose` names the operation in the error, such as "write the state".
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = [], for purpose: String) throws(StateError) -> [[String?]] {
        try run(sql, parameters, for: purpose) { result in
            (0..<PQntuples(result)).map { row in
                (0..<PQnfields(result)).map { column in
                    PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
                }
            }
        }
    }

    /// Runs one statement and returns the first column of its first row as the server's bytes (nil when there is
    /// no row or the value is NULL): a state body goes straight into the array the parser reads, copied once from
    /// libpq's result, with no `String` on the way.
    func queryBytes(_ sql: String, _ parameters: [String?] = [], for purpose: String) throws(StateError) -> [UInt8]? {
        try run(sql, parameters, for: purpose) { result in
            guard PQntuples(result) > 0, PQnfields(result) > 0, PQgetisnull(result, 0, 0) == 0, let value = PQgetvalue(result, 0, 0) else {
                return nil
            }
            let count = Int(PQgetlength(result, 0, 0))
            return value.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
        }
    }

    /// Sends the statement, checks its status and hands the result to `rows`, which must not keep it: it is
    /// cleared on return.
    private func run<Rows>(_ sql: String, _ parameters: [String?], for purpose: String, _ rows: (OpaquePointer) -> Rows) throws(StateError) -> Rows {
        let result = Self.withCStrings(parameters) { pointers in
            PQexecParams(handle, sql, Int32(parameters.count), nil, pointers, nil, nil, 0)
        }
        guard let result else {
            throw .database(source: url.source, operation: purpose, message: url.scrub(Self.text(PQerrorMessage(handle))))
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            throw .database(source: url.source, operation: purpose, message: url.scrub(Self.text(PQresultErrorMessage(result))))
        }
        return rows(result)
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? "no message"
    }

    /// `strings` as a C array of C strings (nil entries stay NULL), valid during `body`.
    private static func withCStrings<Result>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> Result) -> Result {
        let copies = strings.map { $0.flatMap { strdup($0) } }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
