import Foundation
import MCloudTestSupport
import Testing
@testable import MCloudDatabaseEngines

/// Debian 12's cloud-init (in the container bed's root, `container.sh schema`) accepts the user data of every
/// recipe, those the bed cannot boot included. Fails, never skips, without the bed.
struct SchemaBedTests {
    @Test func cloudInitsSchemaAcceptsEveryRecipesUserData() async throws {
        var documents: [(name: String, text: String)] = []
        for recipe in EngineCatalog.recipes {
            for bucket in [true, false] {
                let name = "\(recipe.engine.rawValue)-\(recipe.series)-\(recipe.family.rawValue)\(bucket ? "-dr" : "")"
                documents.append((name, DatabaseUserData.render(UserDataTests.vm(recipe, bucket: bucket))))
            }
        }
        try await Self.expectValid(documents)
    }

    /// Writes each document to a file and expects cloud-init to call every one valid.
    static func expectValid(_ documents: [(name: String, text: String)]) async throws {
        let bed = try ContainerBed.load()
        let folder = try UserDataTests.folder()
        var files: [String] = []
        for document in documents {
            let path = "\(folder)/\(document.name).yaml"
            try Data(document.text.utf8).write(to: URL(fileURLWithPath: path))
            files.append(path)
        }
        let result = try await bed.schema(files)
        #expect(result.succeeded, "\(result.output.prefix(4000))")
        #expect(result.stdout.components(separatedBy: "Valid cloud-config").count - 1 == files.count, "\(result.output.prefix(2000))")
    }

    @Test func cloudInitsSchemaRefusesBrokenUserData() async throws {
        let bed = try ContainerBed.load()
        let path = try UserDataTests.folder() + "/broken.yaml"
        try Data("#cloud-config\nwrite_files:\n  - path: /x\n    permissions: 644\n    bogus: 1\n".utf8).write(to: URL(fileURLWithPath: path))
        let result = try await bed.schema([path])
        #expect(!result.succeeded)
        #expect(result.stdout.contains("\(path): invalid"), "\(result.output)")
    }
}
