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
        #expect(root["runcmd"]?.sequence?.first?.sequence?.first?.scalar?.value == DatabaseUserData.setupScript)
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
        #expect(paths.count == EngineCatalog.recipes.count + 3)
        for path in paths {
            let syntax = try await Command.run("/bin/bash", ["-n", path])
            #expect(syntax.succeeded, "\(path): \(syntax.output)")
        }
        let lint = try await Command.run("/usr/bin/shellcheck", ["--shell=bash", "--severity=style"] + paths)
        #expect(lint.succeeded, "\(lint.output.prefix(4000))")
    }
}
