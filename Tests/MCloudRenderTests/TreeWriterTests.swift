import Foundation
@testable import MCloudRender
import Testing

/// `render --out DIR` owns DIR: it writes a missing, empty or marked directory, refuses any other unless forced,
/// replaces its own entries whole and never leaves a half-written tree.
@Suite struct TreeWriterTests {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-render-tests-\(UUID().uuidString)").path

    static let first = RenderedTree(files: [
        .init(path: "clusters/c1/kustomization.yaml", contents: "resources:\n- app/web.deployment.yaml\n"),
        .init(path: "clusters/c1/app/web.deployment.yaml", contents: "kind: Deployment\n"),
        .init(path: "clusters/c2/app/api.deployment.yaml", contents: "kind: Deployment\n"),
        .init(path: "infrastructure/c1/app.db.manageddatabase.yaml", contents: "kind: ManagedDatabase\n"),
    ])
    static let marker = RenderMarker(source: Bootstrap.Source(url: "https://git.example/deploy.git", branch: "main"))
    static let second = RenderedTree(files: [.init(path: "clusters/c1/app/web.deployment.yaml", contents: "kind: Deployment\nspec: {}\n")])

    func contents(_ directory: String) -> [String: String] {
        var files: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let relative = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = directory + "/" + relative
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[relative] = try? String(contentsOfFile: path, encoding: .utf8)
            }
        }
        return files
    }

    func write(_ path: String, _ text: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func expected(_ tree: RenderedTree, plus extra: [String: String] = [:]) -> [String: String] {
        var files = Dictionary(uniqueKeysWithValues: tree.files.map { ($0.path, $0.contents) })
        files[TreeWriter.marker] = Self.marker.contents
        return files.merging(extra) { $1 }
    }

    @Test func aMissingDirectoryIsCreatedWithTheTreeAndTheMarker() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let out = scratch + "/deploy/prod"
        try TreeWriter.write(Self.first, marker: Self.marker, to: out, force: false)
        #expect(contents(out) == expected(Self.first))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch + "/deploy") == ["prod"])
    }

    @Test func anEmptyDirectoryIsWritten() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        try TreeWriter.write(Self.first, marker: Self.marker, to: scratch, force: false)
        #expect(contents(scratch) == expected(Self.first))
    }

    @Test func aNonEmptyDirectoryItDidNotWriteIsRefusedAndLeftAlone() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try write(scratch + "/README.md", "ours\n")
        #expect {
            try TreeWriter.write(Self.first, marker: Self.marker, to: scratch, force: false)
        } throws: { error in
            "\(error)".contains("was not written by mcloud render") && "\(error)".contains("--force") && "\(error)".contains("README.md")
        }
        #expect(contents(scratch) == ["README.md": "ours\n"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch) == ["README.md"])
    }

    @Test func forceTakesTheDirectoryOverAndKeepsWhatIsNotMclouds() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try write(scratch + "/README.md", "ours\n")
        try write(scratch + "/clusters/old/stale.yaml", "kind: Stale\n")
        try TreeWriter.write(Self.first, marker: Self.marker, to: scratch, force: true)
        #expect(contents(scratch) == expected(Self.first, plus: ["README.md": "ours\n"]))
        // Marked now: the next render needs no force.
        try TreeWriter.write(Self.second, marker: Self.marker, to: scratch, force: false)
        #expect(contents(scratch) == expected(Self.second, plus: ["README.md": "ours\n"]))
    }

    @Test func aRerenderRemovesFilesOfCellsNoLongerPlacedAndKeepsOtherEntries() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try TreeWriter.write(Self.first, marker: Self.marker, to: scratch, force: false)
        try write(scratch + "/.git/config", "[core]\n")
        try TreeWriter.write(Self.second, marker: Self.marker, to: scratch, force: false)
        #expect(contents(scratch) == expected(Self.second, plus: [".git/config": "[core]\n"]))
        #expect(!FileManager.default.fileExists(atPath: scratch + "/clusters/c2"))
        #expect(!FileManager.default.fileExists(atPath: scratch + "/infrastructure"))
        #expect(!FileManager.default.fileExists(atPath: scratch + "/" + TreeWriter.staging))
    }

    @Test func aCellThatMovesLeavesNoFileBehindInItsOldCluster() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let model = try RenderFixtures.shop()
        var moved = RenderFixtures.shopPlacement
        moved.services["reports"] = [(cloud: "c3", count: 3)]
        try TreeWriter.write(Rendering(model: model, placement: RenderFixtures.shopPlacement).tree, marker: Self.marker, to: scratch, force: false)
        #expect(FileManager.default.fileExists(atPath: scratch + "/clusters/c2/shop/reports.deployment.yaml"))
        let tree = Rendering(model: model, placement: moved).tree
        try TreeWriter.write(tree, marker: Self.marker, to: scratch, force: false)
        #expect(contents(scratch) == expected(tree))
        #expect(!FileManager.default.fileExists(atPath: scratch + "/clusters/c2/shop"))
        #expect(FileManager.default.fileExists(atPath: scratch + "/clusters/c3/shop/reports.deployment.yaml"))
    }

    /// A file and a folder of the same name cannot both be written: the render fails before touching DIR.
    @Test func aFailedRenderLeavesThePreviousTreeAsItWas() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try TreeWriter.write(Self.first, marker: Self.marker, to: scratch, force: false)
        let broken = RenderedTree(files: [.init(path: "clusters/c1/x", contents: "a\n"), .init(path: "clusters/c1/x/y.yaml", contents: "b\n")])
        #expect(throws: TreeWriter.Failure.self) { try TreeWriter.write(broken, marker: Self.marker, to: scratch, force: false) }
        #expect(contents(scratch) == expected(Self.first))
        #expect(!FileManager.default.fileExists(atPath: scratch + "/" + TreeWriter.staging))
    }

    @Test func aFileInPlaceOfTheDirectoryIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try write(scratch + "/deploy", "not a directory\n")
        #expect(throws: TreeWriter.Failure.self) { try TreeWriter.write(Self.first, marker: Self.marker, to: scratch + "/deploy", force: true) }
        #expect(contents(scratch) == ["deploy": "not a directory\n"])
    }

    /// A directory rendered before bootstrap/ existed (marker format 1) may hold a bootstrap/ of the team's own.
    @Test func aBootstrapFolderBesideAnOldMarkerIsRefusedUnlessForced() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try write(scratch + "/" + TreeWriter.marker, "# Written by `mcloud render`.\nformat: 1\n")
        try write(scratch + "/bootstrap/ours.yaml", "kind: Ours\n")
        #expect {
            try TreeWriter.write(Self.first, marker: Self.marker, to: scratch, force: false)
        } throws: { error in
            "\(error)".contains("bootstrap was not written by mcloud render") && "\(error)".contains("--force")
        }
        #expect(contents(scratch)["bootstrap/ours.yaml"] == "kind: Ours\n")
        try TreeWriter.write(Self.first, marker: Self.marker, to: scratch, force: true)
        #expect(contents(scratch) == expected(Self.first))
    }

    @Test func theMarkerRemembersTheRepositoryItWasRenderedFor() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let marker = RenderMarker(source: Bootstrap.Source(url: "ssh://git@git.example/a b.git", branch: "release/1.2", fluxSecret: "git-auth"))
        try TreeWriter.write(Self.first, marker: marker, to: scratch, force: false)
        #expect(try RenderMarker.read(directory: scratch) == marker)
        try write(scratch + "/" + TreeWriter.marker, "format: 1\n")
        #expect(try RenderMarker.read(directory: scratch) == RenderMarker(format: 1, source: nil))
        try write(scratch + "/" + TreeWriter.marker, "something else\n")
        #expect(throws: TreeWriter.Failure.self) { try RenderMarker.read(directory: scratch) }
        #expect(try RenderMarker.read(directory: scratch + "/none") == nil)
    }
}
