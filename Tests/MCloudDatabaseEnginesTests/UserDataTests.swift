import Foundation
import MCloudTestSupport
import MCloudYAML
import Testing
@testable import MCloudDatabaseEngines

/// The one renderer's user data for every recipe of the catalog: YAML cloud-init reads, scripts bash and Debian's
/// shellcheck accept, the bucket's keys in the root-only file alone.
struct UserDataTests {
    static let secret = "it's-a-secret/with+odd=chars"

    static func vm(_ recipe: Recipe, bucket: Bool = true) -> DatabaseVM {
        DatabaseVM(
            address: "openstack.vk-msk.DatabaseServer.shop.db.0", server: "shop.db.0", recipe: recipe, port: recipe.engine.defaultPort + 1,
            disks: ["/dev/disk/by-id/virtio-0123456789abcdef0123", "/dev/vdb"],
            backup: DatabaseVM.Backup(
                schedule: "0 */6 * * *", retentionDays: 14,
                bucket: bucket ? DatabaseVM.Bucket(
                    name: "mcloud-shop-db-0123abcd", region: "ru-msk", endpoint: "https://hb.example.net",
                    secrets: [("AWS_ACCESS_KEY_ID", "AKIDBACKUP"), ("AWS_SECRET_ACCESS_KEY", secret)]
                ) : nil
            )
        )
    }

    /// write_files by path, from the YAML cloud-init will read.
    static func files(_ text: String) throws -> [String: YAMLNode] {
        let root = try #require(YAMLReader.read(text, file: "user-data").documents.first?.root)
        let files = try #require(root["write_files"]?.sequence)
        return Dictionary(uniqueKeysWithValues: files.compactMap { file in file["path"]?.scalar.map { ($0.value, file) } })
    }

    static func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "mcloud-user-data-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("every recipe's user data is cloud-config whose files hold exactly what the renderer wrote", arguments: EngineCatalog.recipes)
    func userDataParses(_ recipe: Recipe) throws {
        let vm = Self.vm(recipe)
        let text = DatabaseUserData.render(vm)
        #expect(text.hasPrefix("#cloud-config\n"))
        let files = try Self.files(text)
        for file in DatabaseUserData.files(vm) {
            let node = try #require(files[file.path], "\(file.path) missing")
            #expect(node["content"]?.scalar?.value == file.content, "\(file.path)")
            #expect(node["permissions"]?.scalar?.value == file.permissions)
        }
        let root = try #require(YAMLReader.read(text, file: "user-data").documents.first?.root)
        let runcmd = root["runcmd"]?.sequence?.map { $0.sequence?.compactMap(\.scalar?.value) ?? [] }
        #expect(runcmd == [["systemctl", "enable", "--now", "mcloud-metadata-guard.service"], [DatabaseUserData.setupScript]])
        let settings = try #require(files[DatabaseUserData.settingsPath]?["content"]?.scalar?.value)
        #expect(settings.contains("PORT='\(recipe.engine.defaultPort + 1)'"))
        #expect(settings.contains("MCLOUD_DISKS='/dev/disk/by-id/virtio-0123456789abcdef0123 /dev/vdb'"))
        #expect(settings.contains("MCLOUD_MOUNT='\(recipe.mountPoint)'"))
        #expect(settings.contains("MCLOUD_BACKUP_SCHEDULE='0 */6 * * *'"))
        #expect(settings.contains("MCLOUD_BACKUP_BUCKET='mcloud-shop-db-0123abcd'"))
        #expect(settings.contains("MCLOUD_PACKAGES='\((recipe.packages + ["awscli"]).joined(separator: " "))'"))
        #expect(recipe.dataDirectory.hasPrefix(recipe.mountPoint), "the data directory is on the data disk")
    }

    @Test("the bucket's keys are only in the root-only env file", arguments: [EngineCatalog.recipes[0], EngineCatalog.recipes.last!])
    func secretsOnlyInTheRootOnlyFile(_ recipe: Recipe) throws {
        let vm = Self.vm(recipe)
        let files = try Self.files(DatabaseUserData.render(vm))
        let holding = DatabaseUserData.files(vm).filter { $0.content.contains(DatabaseUserData.quoted(Self.secret)) || $0.content.contains(Self.secret) }
        #expect(holding.map(\.path) == [DatabaseUserData.secretsPath])
        let env = try #require(files[DatabaseUserData.secretsPath])
        #expect(env["permissions"]?.scalar?.value == "0600")
        #expect(env["owner"]?.scalar?.value == "root:root")
        #expect(env["content"]?.scalar?.value == "AWS_ACCESS_KEY_ID='AKIDBACKUP'\nAWS_SECRET_ACCESS_KEY='it'\\''s-a-secret/with+odd=chars'\n")
        #expect(!DatabaseUserData.files(Self.vm(recipe, bucket: false)).contains { $0.path == DatabaseUserData.secretsPath })
    }

    /// A failover's or a drill's server: the recovery point's bucket and object in the settings, its own keys in their
    /// own root-only file, and the setup loading it before the backup schedule goes in.
    @Test func aRecoveryPointIsLoadedWithItsOwnKeysBeforeAnyBackup() throws {
        var vm = Self.vm(EngineCatalog.recipes[0])
        let restoreSecret = "restore's/secret"
        vm.recoveryPoint = DatabaseVM.RecoveryPoint(
            bucket: DatabaseVM.Bucket(name: "mcloud-shop-db-old", region: "ru-spb", endpoint: "https://s3.old.example", secrets: [("AWS_ACCESS_KEY_ID", "AKIDRESTORE"), ("AWS_SECRET_ACCESS_KEY", restoreSecret)]),
            object: "shop.db.0/20261202T030000Z.sql.gz"
        )
        let files = try Self.files(DatabaseUserData.render(vm))
        let settings = try #require(files[DatabaseUserData.settingsPath]?["content"]?.scalar?.value)
        for line in ["MCLOUD_RESTORE_BUCKET='mcloud-shop-db-old'", "MCLOUD_RESTORE_OBJECT='shop.db.0/20261202T030000Z.sql.gz'", "MCLOUD_RESTORE_REGION='ru-spb'", "MCLOUD_RESTORE_ENDPOINT='https://s3.old.example'"] {
            #expect(settings.contains(line + "\n"), "\(line)")
        }
        let holding = DatabaseUserData.files(vm).filter { $0.content.contains(DatabaseUserData.quoted(restoreSecret)) || $0.content.contains(restoreSecret) }
        #expect(holding.map(\.path) == [DatabaseUserData.restoreSecretsPath])
        #expect(files[DatabaseUserData.restoreSecretsPath]?["permissions"]?.scalar?.value == "0600")
        let setup = try #require(files[DatabaseUserData.setupScript]?["content"]?.scalar?.value)
        let restore = try #require(setup.range(of: "mcloud-restore --recovery-point"))
        let schedule = try #require(setup.range(of: "/etc/cron.d/mcloud-backup"))
        #expect(restore.lowerBound < schedule.lowerBound)
        #expect(!DatabaseUserData.files(Self.vm(EngineCatalog.recipes[0])).contains { $0.path == DatabaseUserData.restoreSecretsPath })
        #expect(DatabaseUserData.backupTime(key: DatabaseUserData.restoreReportKey(server: "shop.db.0"), storedAt: "2026-12-02T03:00:00.000Z") == nil)
    }

    // Issue 32, H2: a leg's own IAM user may only upload; listing and deleting old backups would fail every run.
    @Test func aBucketWhoseKeysMayOnlyUploadLeavesExpiryToTheBucket() throws {
        var vm = Self.vm(EngineCatalog.recipes[0])
        #expect(!DatabaseUserData.settings(vm).contains("MCLOUD_BACKUP_WRITE_ONLY"))
        vm.backup?.bucket?.writeOnly = true
        #expect(DatabaseUserData.settings(vm).contains("MCLOUD_BACKUP_WRITE_ONLY='1'"))
        let script = DatabaseUserData.backup
        let guardLine = try #require(script.range(of: #"[ -z "${MCLOUD_BACKUP_WRITE_ONLY:-}" ]; then"#))
        let status = try #require(script.range(of: "$MCLOUD_SERVER/status.json\" ||"))
        for call in ["s3api list-objects-v2", "s3api delete-object"] {
            let range = try #require(script.range(of: call))
            #expect(status.upperBound < guardLine.lowerBound && guardLine.upperBound < range.lowerBound, "\(call) runs only with keys that may list and delete")
        }
    }

    @Test func theRestoreReportIsReadBack() throws {
        let report = try #require(RestoreReport(json: Array(#"{"server": "a.db.drill-1", "object": "a.db.0/x.sql.gz", "startedAt": "2026-12-02T03:00:00Z", "finishedAt": "2026-12-02T03:00:09Z", "error": null}"#.utf8)))
        #expect(report.finishedAt - report.startedAt == 9 && report.error == nil && report.object == "a.db.0/x.sql.gz")
        #expect(RestoreReport(json: Array(#"{"server": "a"}"#.utf8)) == nil)
        #expect(RestoreReport(json: Array(#"{"server": "a", "object": "o", "startedAt": "x", "finishedAt": "2026-12-02T03:00:09Z", "error": "mcloud-restore exited 1"}"#.utf8)) == nil)
    }

    @Test func theUserDataIsTheSameForTheSameVM() {
        let recipe = EngineCatalog.recipes[3]
        #expect(DatabaseUserData.render(Self.vm(recipe)) == DatabaseUserData.render(Self.vm(recipe)))
    }

    /// The scripts the bed cannot boot for vendor-repository recipes still pass bash -n and Debian's shellcheck; the
    /// generic scripts are the same for every recipe, each recipe's own steps are in mcloud-engine.
    @Test func bashAndShellcheckAcceptEveryScript() async throws {
        let folder = try Self.folder()
        var paths: [String] = []
        for (index, recipe) in EngineCatalog.recipes.enumerated() {
            for file in DatabaseUserData.files(Self.vm(recipe)) where file.permissions == "0755" {
                guard index == 0 || file.path == DatabaseUserData.engineScript else { continue }
                let path = "\(folder)/\(index)-\(recipe.engine.rawValue)-\(recipe.series)-\(recipe.family.rawValue)-\((file.path as NSString).lastPathComponent)"
                try Data(file.content.utf8).write(to: URL(fileURLWithPath: path))
                paths.append(path)
            }
        }
        #expect(paths.count == EngineCatalog.recipes.count + 4)
        for path in paths {
            let syntax = try await Command.run("/bin/bash", ["-n", path])
            #expect(syntax.succeeded, "\(path): \(syntax.output)")
        }
        let lint = try await Command.run("/usr/bin/shellcheck", ["--shell=bash", "--severity=style"] + paths)
        #expect(lint.succeeded, "\(lint.output.prefix(4000))")
    }

    /// The metadata service serves the user data, keys included, to any process that asks; once cloud-init has read
    /// it, the guard closes it to every user but root (docs/security.md, H2). Its rules are exact: they are the
    /// golden of what the user data asks of the VM's routing.
    @Test func theUserDataClosesTheMetadataServiceToEveryUserButRootBeforeTheSetup() throws {
        let vm = Self.vm(EngineCatalog.recipes[0])
        let files = try Self.files(DatabaseUserData.render(vm))
        let script = try #require(files[DatabaseUserData.metadataGuardScript]?["content"]?.scalar?.value)
        #expect(files[DatabaseUserData.metadataGuardScript]?["permissions"]?.scalar?.value == "0755")
        let rules = script.split(separator: "\n").filter { $0.contains("ip ") && $0.contains(" add ") }.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(rules == [
            #"ip rule add uidrange "$users" to 169.254.169.254 prohibit"#,
            #"ip -6 rule add uidrange "$users" to fd00:ec2::254 prohibit"#,
        ])
        #expect(script.contains("\nusers=1-4294967294\n"))
        let unit = try #require(files[DatabaseUserData.metadataGuardUnit]?["content"]?.scalar?.value)
        #expect(unit.contains("\nExecStart=/usr/local/sbin/mcloud-metadata-guard\n"))
        #expect(unit.contains("\nBefore=network-pre.target\n") && unit.contains("\nWantedBy=sysinit.target\n"))
    }

    /// The guard run in a network namespace of its own (needs root, as the VM's cloud-init has): a process of any user
    /// but root is refused a route to the metadata address, root still has one, and a second run (every boot) keeps
    /// one rule per address.
    @Test func theGuardRefusesTheMetadataAddressToNonRootAndKeepsItForRoot() async throws {
        try #require(getuid() == 0, "needs root to make a network namespace (as cloud-init on the VM runs the guard)")
        let folder = try Self.folder()
        let guardPath = "\(folder)/mcloud-metadata-guard"
        try Data(DatabaseUserData.metadataGuard.utf8).write(to: URL(fileURLWithPath: guardPath))
        let probe = """
            set -u
            ip link set lo up && ip route add default dev lo && ip -6 route add default dev lo
            bash \(guardPath) && bash \(guardPath) >/dev/null
            echo "rules: $(ip rule show | grep -c 169.254.169.254) $(ip -6 rule show | grep -c fd00:ec2::254)"
            ip route get 169.254.169.254 uid 65534 >/dev/null 2>&1 && echo "nobody: route" || echo "nobody: refused"
            ip -6 route get fd00:ec2::254 uid 1000 >/dev/null 2>&1 && echo "user: route" || echo "user: refused"
            ip route get 169.254.169.254 uid 0 >/dev/null 2>&1 && echo "root: route" || echo "root: refused"
            """
        let run = try await Command.run("/usr/bin/unshare", ["--net", "/bin/bash", "-c", probe])
        #expect(run.stdout == "mcloud: the metadata service answers root only\nrules: 1 1\nnobody: refused\nuser: refused\nroot: route\n", "\(run.output)")
    }
}
