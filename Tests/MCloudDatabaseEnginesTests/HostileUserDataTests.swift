import Foundation
import MCloudTestSupport
import Testing
@testable import MCloudDatabaseEngines

/// Values from outside mcloud (a bucket's newest key, a catalog's bucket name and endpoint, a key's secret, a
/// manifest's address) carrying each line break YAML 1.1 knows never add a key to the user data: read by PyYAML, as
/// cloud-init reads it, the document has the keys of a clean rendering and every file exactly what the renderer wrote.
struct HostileUserDataTests {
    enum LineBreak: String, CaseIterable, CustomTestStringConvertible {
        case lineSeparator = "\u{2028}", paragraphSeparator = "\u{2029}", nextLine = "\u{85}", carriageReturn = "\r", crlf = "\r\n", lineFeed = "\n"

        var testDescription: String { rawValue.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ") }
    }

    enum Site: String, CaseIterable {
        case recoveryPointKey, bucketName, endpoint, secretValue, address
    }

    static let markerPath = "/PWNED"

    /// Ends the value's line, adds a top-level `bootcmd`, and opens a block that swallows the rest of the line and the
    /// file's other lines, so that a renderer that lets the break through yields a document that still parses.
    static func hostile(_ prefix: String, _ lineBreak: LineBreak) -> String {
        [prefix, #"bootcmd: [[sh, -c, "id > \#(markerPath)"]]"#, "z:", "  - a: |", "      "].joined(separator: lineBreak.rawValue)
    }

    static func vm(_ site: Site, _ lineBreak: LineBreak?) -> DatabaseVM {
        func value(_ clean: String) -> String { lineBreak.map { hostile(clean, $0) } ?? clean }
        var vm = UserDataTests.vm(EngineCatalog.recipes[0])
        if site == .address { vm.address = value(vm.address) }
        vm.backup?.bucket?.name = site == .bucketName ? value("mcloud-shop-db-0123abcd") : "mcloud-shop-db-0123abcd"
        vm.backup?.bucket?.endpoint = site == .endpoint ? value("https://hb.example.net") : "https://hb.example.net"
        vm.backup?.bucket?.secrets = [("AWS_ACCESS_KEY_ID", "AKIDBACKUP"), ("AWS_SECRET_ACCESS_KEY", site == .secretValue ? value("secret") : "secret")]
        vm.recoveryPoint = DatabaseVM.RecoveryPoint(
            bucket: DatabaseVM.Bucket(name: "mcloud-shop-db-old", region: "ru-spb"),
            object: site == .recoveryPointKey ? value("db.0/20991231T235959Z") : "db.0/20261202T030000Z.sql.gz"
        )
        return vm
    }

    /// The top-level keys and the `write_files` contents PyYAML (Debian's python3-yaml, cloud-init's parser) reads.
    static func pyYAML(_ text: String) async throws -> (keys: [String], files: [String: String]) {
        let script = """
            import json, sys, yaml
            document = yaml.safe_load(sys.stdin.buffer.read().decode("utf-8"))
            json.dump({"keys": sorted(document), "files": {f["path"]: f["content"] for f in document.get("write_files", [])}}, sys.stdout)
            """
        let result = try await Command.run("/usr/bin/python3", ["-c", script], input: Data(text.utf8))
        try #require(result.succeeded, "PyYAML refused the user data: \(result.stderr.suffix(1500))")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return (try #require(object["keys"] as? [String]), try #require(object["files"] as? [String: String]))
    }

    @Test(arguments: Site.allCases, LineBreak.allCases)
    func aLineBreakInAValueNeverAddsAKeyToTheUserData(_ site: Site, _ lineBreak: LineBreak) async throws {
        let clean = try await Self.pyYAML(DatabaseUserData.render(Self.vm(site, nil)))
        let vm = Self.vm(site, lineBreak)
        let hostile = try await Self.pyYAML(DatabaseUserData.render(vm))
        #expect(clean.keys == ["runcmd", "write_files"])
        #expect(hostile.keys == clean.keys)
        #expect(hostile.files == Dictionary(uniqueKeysWithValues: DatabaseUserData.files(vm).map { ($0.path, $0.content) }))
    }

    /// The escaping is for hostile values only: every recipe's files stay literal blocks a person can read on the VM.
    @Test func everyRecipesCleanUserDataKeepsItsFilesAsLiteralBlocks() {
        for recipe in EngineCatalog.recipes {
            let files = DatabaseUserData.files(UserDataTests.vm(recipe))
            #expect(files.allSatisfy { CloudConfigText.fitsLiteralBlock($0.content) }, "\(recipe.engine.rawValue) \(recipe.series) \(recipe.family.rawValue)")
        }
    }

    /// What a literal block cannot carry goes double-quoted; what it can stays a readable block.
    @Test(arguments: [
        ("a\n", true), ("#!/bin/bash\nset -e\n\n  indented\n", true), ("caf\u{E9}\n", true), ("", false), ("no final break", false),
        ("two final breaks\n\n", false), (" leading space\n", false), ("\nleading break\n", false), ("tab\tinside\n", true),
        ("bell\u{7}\n", false), ("bom\u{FEFF}\n", false), ("a\u{2028}b\n", false), ("a\rb\n", false),
    ])
    func theLiteralBlockIsUsedOnlyWhenItCarriesTheTextExactly(_ text: String, _ fits: Bool) async throws {
        #expect(CloudConfigText.fitsLiteralBlock(text) == fits)
        let document = "#cloud-config\nwrite_files:\n  - path: \(CloudConfigText.scalar("/x y: #z"))\n" + CloudConfigText.entry("content", text, indent: 4).joined(separator: "\n") + "\n"
        let read = try await Self.pyYAML(document)
        #expect(read.files == ["/x y: #z": text])
    }
}
