import Foundation
import MCloudCore
import MCloudPlanner
@testable import MCloudRender
import Testing

/// The whole tree of every bundled example, bootstrap objects included, against Golden/<app>/;
/// `MCLOUD_RECORD_GOLDEN=1` re-records them.
@Suite struct GoldenTreeTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden").path

    @Test(arguments: RenderFixtures.examples)
    func everyExampleRendersItsGoldenTree(_ name: String) throws {
        let tree = try RenderFixtures.exampleTree(name)
        let directory = Self.golden + "/" + name
        if ProcessInfo.processInfo.environment["MCLOUD_RECORD_GOLDEN"] == "1" {
            try? FileManager.default.removeItem(atPath: directory)
            for file in tree.files {
                let path = directory + "/" + file.path
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(file.contents.utf8).write(to: URL(fileURLWithPath: path))
            }
            return
        }
        let recorded = Self.files(under: directory)
        try #require(!recorded.isEmpty, "no golden tree for \(name); record it with MCLOUD_RECORD_GOLDEN=1 swift test")
        #expect(tree.files.map(\.path) == recorded.map(\.path), "the tree's files differ from Golden/\(name)")
        for (file, expected) in zip(tree.files, recorded) where file.path == expected.path {
            #expect(file.contents == expected.contents, "Golden/\(name)/\(file.path) differs")
        }
    }

    @Test(arguments: RenderFixtures.examples)
    func renderingTwiceGivesTheSameBytes(_ name: String) throws {
        #expect(try RenderFixtures.exampleTree(name) == RenderFixtures.exampleTree(name))
    }

    /// Every file under `directory`, by path relative to it, sorted.
    static func files(under directory: String) -> [RenderedTree.File] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var files: [RenderedTree.File] = []
        while let relative = enumerator.nextObject() as? String {
            let path = directory + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                  let contents = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            files.append(RenderedTree.File(path: relative, contents: contents))
        }
        return files.sorted { $0.path < $1.path }
    }
}
