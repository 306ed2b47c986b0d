import Foundation
import MCloudTestSupport
import Testing
@testable import MCloudDatabaseEngines

/// The ClickHouse recipe's dump and restore steps, run by bash against a stand-in `clickhouse-client` that answers
/// `system.tables` with one hostile name and records every query: the dump's files stay inside it whatever the table
/// is called, and every statement names the table as one back-quoted identifier.
struct ClickHouseNamesTests {
    struct Names: Sendable, CustomTestStringConvertible {
        var database: String
        var table: String
        var testDescription: String { "\(database.debugDescription).\(table.debugDescription)" }
    }

    static let cases = [
        Names(database: "shop", table: "orders"),
        Names(database: "a`b", table: #"x\`; DROP TABLE y; --"#),
        Names(database: "..", table: "../../../escaped"),
        Names(database: "line\nbreak", table: "tab\there"),
    ]

    /// Answers the listing in whichever form the step asks for (names as hex, or raw as the step used to), and
    /// records each query NUL-terminated, since queries may hold line breaks.
    static let client = #"""
        #!/bin/bash
        query=""
        while [ $# -gt 0 ]; do case "$1" in --query) query=$2; shift 2 ;; *) shift ;; esac; done
        printf '%s\0' "$query" >>"$QUERIES"
        hex() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n' | tr a-f A-F; }
        case "$query" in
          "SELECT hex(database)"*) printf '%s\t%s\tMergeTree\n' "$(hex "$DATABASE")" "$(hex "$TABLE")" ;;
          "SELECT database"*) printf '%s\t%s\tMergeTree\n' "$DATABASE" "$TABLE" ;;
          "SHOW CREATE TABLE"*) echo "CREATE TABLE t (x UInt8) ENGINE = MergeTree ORDER BY x" ;;
          "SELECT * FROM"*) echo rows ;;
          *) if [ ! -t 0 ]; then cat >/dev/null; fi ;;
        esac
        """#

    static func identifier(_ name: String) -> String {
        "`" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "`", with: "\\`") + "`"
    }

    static func hex(_ name: String) -> String {
        name.utf8.map { String(format: "%02X", $0) }.joined()
    }

    @Test(arguments: cases)
    func aTableIsDumpedInsideTheDumpAndNamedAsOneIdentifier(_ names: Names) async throws {
        let folder = try UserDataTests.folder()
        try FileManager.default.createDirectory(atPath: folder + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/work", withIntermediateDirectories: true)
        try Data(Self.client.utf8).write(to: URL(fileURLWithPath: folder + "/bin/clickhouse-client"))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder + "/bin/clickhouse-client")
        let environment = [
            "PATH": "\(folder)/bin:/usr/bin:/bin", "TMPDIR": folder + "/work", "QUERIES": folder + "/queries", "DATABASE": names.database,
            "TABLE": names.table, "PORT": "9000", "OUT": folder + "/dump.tar.gz", "IN": folder + "/dump.tar.gz",
        ]
        func run(_ step: String) async throws {
            let result = try await Command.run("/bin/bash", ["-euo", "pipefail", "-c", step], environment: environment)
            try #require(result.succeeded, "\(result.output)")
        }
        try await run(ClickHouseRecipes.dump)
        let listing = try await Command.run("/bin/tar", ["-tzf", folder + "/dump.tar.gz"])
        let (database, table) = (Self.hex(names.database), Self.hex(names.table))
        #expect(listing.stdout.split(separator: "\n").sorted() == ["./", "./.hex-names", "./\(database)/", "./\(database)/\(table).native", "./\(database)/\(table).sql"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["bin", "dump.tar.gz", "queries", "work"])

        try await run(ClickHouseRecipes.restore)
        let queries = String(decoding: try #require(FileManager.default.contents(atPath: folder + "/queries")), as: UTF8.self)
            .split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
        let target = Self.identifier(names.database) + "." + Self.identifier(names.table)
        #expect(queries.dropFirst() == [
            "SHOW CREATE TABLE \(target)", "SELECT * FROM \(target) FORMAT Native",
            "CREATE DATABASE IF NOT EXISTS \(Self.identifier(names.database))", "", "INSERT INTO \(target) FORMAT Native",
        ])
    }
}
