import Foundation
@testable import MCloudRender
import Testing

/// `render --check DIR` compares what would be rendered with the entries mcloud owns in DIR, file by file.
@Suite struct TreeComparisonTests {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-compare-\(UUID().uuidString)").path
    static let marker = RenderMarker(source: RenderFixtures.source)

    func shopTree(_ placement: Placement = RenderFixtures.shopPlacement) throws -> RenderedTree {
        let model = try RenderFixtures.shop()
        let rendering = Rendering(model: model, placement: placement)
        return rendering.tree(with: Bootstrap(model: model, rendering: rendering, source: RenderFixtures.source))
    }

    @Test func aWrittenTreeIsIdenticalAndFilesOutsideWhatMcloudOwnsAreNotCompared() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let tree = try shopTree()
        try TreeWriter.write(tree, marker: Self.marker, to: scratch, force: false)
        try Data("ours\n".utf8).write(to: URL(fileURLWithPath: scratch + "/README.md"))
        #expect(try TreeComparison.compare(tree, marker: Self.marker, with: scratch).isIdentical)
    }

    /// The placement leaves c2: its folder and Kustomization are removed, the ApplicationSet changes.
    @Test func aClusterThePlacementLeavesIsReportedAsRemovedFiles() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try TreeWriter.write(try shopTree(), marker: Self.marker, to: scratch, force: false)
        var moved = RenderFixtures.shopPlacement
        moved.services["web@ru"] = [(cloud: "c1", count: 3)]
        moved.services["reports"] = [(cloud: "c3", count: 3)]
        let tree = try shopTree(moved)
        let comparison = try TreeComparison.compare(tree, marker: Self.marker, with: scratch)
        let removed = comparison.differences.compactMap { if case .removed(let path) = $0 { path } else { nil } }
        #expect(removed.contains("bootstrap/flux/shop-c2.kustomization.yaml"))
        #expect(removed.contains("clusters/c2/kustomization.yaml"))
        #expect(removed.contains("clusters/c2/shop/reports.deployment.yaml"))
        #expect(removed.allSatisfy { $0.hasPrefix("clusters/c2/") || $0 == "bootstrap/flux/shop-c2.kustomization.yaml" })
        let changed = comparison.differences.compactMap { if case .changed(let path, _, _) = $0 { path } else { nil } }
        #expect(changed.contains("bootstrap/argocd/shop.applicationset.yaml"))
        let report = comparison.report(directory: "deploy")
        #expect(report.contains("\n  removed  clusters/c2/kustomization.yaml\n"))
        #expect(report.contains("--- a/bootstrap/argocd/shop.applicationset.yaml\n+++ b/bootstrap/argocd/shop.applicationset.yaml\n"))
        #expect(report.contains("-      - cloud: c2\n"))
    }

    @Test func aFileTheRenderAddsIsAddedAndAMarkerOfAnotherRepositoryChanged() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let tree = try shopTree()
        try TreeWriter.write(tree, marker: Self.marker, to: scratch, force: false)
        try FileManager.default.removeItem(atPath: scratch + "/clusters/c1/kustomization.yaml")
        let other = RenderMarker(source: .init(url: "https://git.example/other.git", branch: "main"))
        let comparison = try TreeComparison.compare(tree, marker: other, with: scratch)
        #expect(comparison.differences.map(\.path) == ["\(TreeWriter.marker)", "clusters/c1/kustomization.yaml"])
        #expect(comparison.differences.last == .added(path: "clusters/c1/kustomization.yaml"))
    }

    @Test func anUnreadableEntryOrAMissingDirectoryFails() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let tree = try shopTree()
        #expect(throws: TreeWriter.Failure.self) { try TreeComparison.compare(tree, marker: Self.marker, with: scratch) }
        try TreeWriter.write(tree, marker: Self.marker, to: scratch, force: false)
        // A link to itself: no user, root included, can read it.
        try FileManager.default.createSymbolicLink(atPath: scratch + "/clusters/c1/loop.yaml", withDestinationPath: "loop.yaml")
        #expect {
            try TreeComparison.compare(tree, marker: Self.marker, with: scratch)
        } throws: { "\($0)" == "cannot read \(scratch)/clusters/c1/loop.yaml" }
    }
}
