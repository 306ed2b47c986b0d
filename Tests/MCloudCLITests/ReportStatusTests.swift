import Foundation
import MCloudCore
import MCloudTestSupport
@testable import MCloudCLI
import Testing

/// `report --status`: the live health drawn on the placement map from the same status document `mcloud status`
/// prints. In-process on the ledger's memory clouds (`StatusLab`) for a degraded cell and a cloud that does not answer,
/// then on the kube-apiserver bed, opened in headless Chromium as ReportCommandTests opens the plain page.
@Suite(.serialized) struct ReportStatusTests {
    /// The page without --status keeps the bytes it had before --status existed: the SHA-256 of the page the binary
    /// of the commit before wrote, paths under the checkout made relative as the goldens make them.
    @Test func withoutStatusThePageIsTheSameBytesAsBefore() async throws {
        let page = await mcloudRun(["report", "-f", "\(fixtures)/considered/Manifests", "--providers", "\(fixtures)/considered/Providers", "--out", "-"])
        #expect(page.exitCode == 0, "\(page.stderr)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-report-\(UUID().uuidString).html").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data(page.stdout.replacingOccurrences(of: repositoryRoot + "/", with: "").utf8).write(to: URL(fileURLWithPath: file))
        let digest = try await Command.run("/usr/bin/env", ["sha256sum", file])
        #expect(digest.stdout.hasPrefix("af249b3a443e679c6019185c2056b5a19a2cfb16b23a04c165388c033d9a187a "), "\(digest.stdout)")
        #expect(!page.stdout.contains("id=\"health\"") && !page.stdout.contains("data-health"))
    }

    @Test func aDegradedCellShowsItsReasonAndACloudThatDoesNotAnswerIsGreyed() async throws {
        let lab = try await StatusLab()
        lab.catalog.ready = 0
        lab.catalog.hanging = ["dc-b"]
        let report = await lab.run("report", ["--status", "--timeout", "1", "--out", "-"])
        #expect(report.exitCode == 0, "\(report.stderr)")
        let page = report.stdout
        #expect(page.contains("<h2>Health now: <span class=\"health\">Unknown</span></h2>"), "the worst health is the application's")
        #expect(page.contains("<li class=\"down\"><b>cloud dc-b</b> is down: no answer within 1 s (--timeout)</li>"))
        #expect(page.contains("<li><b>api@eu</b> in lab <span class=\"health\" style=\"--h:#dc2626\">Degraded</span> 0 of 1 replicas ready</li>"))
        let chip = try #require(page.split(separator: "\n").first { $0.contains("<a class=\"chip service\" href=\"#cell-api@eu\"") })
        #expect(chip.contains("data-health=\"Degraded\" style=\"--c:#dc2626\""), "\(chip)")
        #expect(chip.contains(". Degraded: 0 of 1 replicas ready</title>"), "\(chip)")
        #expect(page.contains("<g class=\"cloud down\" id=\"cloud-dc-b\" data-cloud=\"dc-b\">\n<title>dc-b is down: no answer within 1 s (--timeout)</title>"))
        #expect(page.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").range(of: "http") == nil, "the page stays offline")
    }

    @Test(arguments: [
        StatusCommandTests.Misuse(arguments: ["--timeout", "5"], message: "error: --timeout is read only with --status, which draws the live health\n"),
        StatusCommandTests.Misuse(arguments: ["--state", "file:///tmp/state.json"], message: "error: --state is read only with --status, which draws the live health\n"),
        StatusCommandTests.Misuse(arguments: ["--status", "--timeout", "0"], message: "error: --timeout must be a whole number of seconds from 1 to 3600, not \"0\"\n"),
    ])
    func aBadCallIsAClearErrorAndExitsOne(_ misuse: StatusCommandTests.Misuse) async throws {
        let manifests = ["-f", "\(fixtures)/considered/Manifests", "--providers", "\(fixtures)/considered/Providers"]
        let report = await mcloudRun(["report"] + manifests + misuse.arguments + ["--out", "-"])
        #expect(report.exitCode == 1)
        #expect(report.stderr.hasPrefix(misuse.message), "\(report.stderr)")
    }

    /// On the bed: api has 1 of its 3 replicas ready. The page opens clean in Chromium, the degraded chip carries its
    /// reason, and the status part (the health section and the map's chips) matches its golden.
    @Test func onTheBedTheReportWithStatusOpensCleanAndShowsTheDegradedCell() async throws {
        let workspace = try EngineWorkspace()
        let applied = await workspace.run("apply", ["--auto-approve"])
        #expect(applied.exitCode == 0, "\(applied.stderr)")
        try await StatusBedTests.report(workspace, apiReady: 1)
        try FileManager.default.createDirectory(atPath: ReportCommandTests.artifacts, withIntermediateDirectories: true)
        let file = "\(ReportCommandTests.artifacts)/status-bed.html"
        let report = await workspace.run("report", ["--status", "--out", file] + StatusBedTests.patient)
        #expect(report.exitCode == 0, "\(report.stderr)")
        let opened = try await ReportCommandTests.open(file, screenshot: "\(ReportCommandTests.artifacts)/status-bed.png")
        ReportCommandTests.expectSound(opened, cells: ["api@eu", "web@eu"], clouds: ["lab"])
        #expect(opened.dom.contains("1 of 3 replicas ready"), "the degraded cell's reason")
        let page = try String(contentsOfFile: file, encoding: .utf8)
        let section = try #require(page.range(of: "<section id=\"health\"").flatMap { start in page.range(of: "</section>\n", range: start.lowerBound..<page.endIndex).map { page[start.lowerBound..<$0.upperBound] } })
        let chips = page.split(separator: "\n", omittingEmptySubsequences: false).filter { $0.hasPrefix("<a class=\"chip ") }
        let part = (String(section) + chips.joined(separator: "\n") + "\n")
            .replacingOccurrences(of: workspace.application, with: "e2e-APP")
            .replacingOccurrences(of: #"<time datetime="[^"]*">[^<]*</time>"#, with: "<time datetime=\"TIME\">TIME</time>", options: .regularExpression)
        try Golden.check(part, named: "report-status-bed.html")
        let destroyed = await workspace.run("destroy", ["--auto-approve"])
        #expect(destroyed.exitCode == 0, "\(destroyed.stderr)")
    }
}
