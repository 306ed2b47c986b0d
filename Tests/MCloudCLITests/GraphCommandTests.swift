import Foundation
import Testing

@Suite struct GraphCommandTests {
    static var arguments: [String] { ["-f", "\(fixtures)/engine/app", "--providers", "\(fixtures)/engine/providers"] }

    @Test func dotListsEveryResourceByCloudWithItsDependencies() async throws {
        let run = await mcloudRun(["graph"] + Self.arguments)
        #expect(run.exitCode == 0, "\(run.stderr)")
        try Golden.check(run.stdout, named: "graph-engine-app.dot")
    }

    /// Graphviz draws svg and html; CI installs it (graphviz), so this never silently passes without it.
    @Test(arguments: ["svg", "html"])
    func graphvizDrawsSvgAndHTML(_ format: String) async throws {
        let run = await mcloudRun(["graph", "--format", format] + Self.arguments, environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
        #expect(run.exitCode == 0, "\(run.stderr)")
        #expect(run.stdout.contains("<svg") && run.stdout.contains("Deployment"))
        #expect(run.stdout.hasPrefix("<!DOCTYPE html>") == (format == "html"))
    }

    @Test func withoutGraphvizSvgFailsNamingThePackage() async {
        let run = await mcloudRun(["graph", "--format", "svg"] + Self.arguments, environment: ["PATH": "/nonexistent"])
        #expect(run.exitCode == 1)
        #expect(run.stderr.contains("apt-get install graphviz"))
    }

    @Test func anUnknownFormatIsAUsageError() async {
        let run = await mcloudRun(["graph", "--format", "png"] + Self.arguments)
        #expect(run.exitCode == 1 && run.stderr.contains("--format must be dot, svg or html"))
    }
}
