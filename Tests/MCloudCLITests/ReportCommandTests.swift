import Foundation
import MCloudCore
import MCloudSynthetic
import MCloudTestSupport
import Testing

/// `mcloud report`, opened as a reviewer would: headless Chromium (Debian's `chromium`) loads the page from a file://
/// URL with the network off (scripts/headless_page.py drives it over the DevTools protocol) and reports the console,
/// uncaught exceptions, failed loads and the DOM. The pages and their screenshots stay in .build/report-artifacts for
/// a person to look at (CI keeps them as artifacts).
@Suite(.serialized) struct ReportCommandTests {
    static let artifacts = "\(repositoryRoot)/.build/report-artifacts"

    /// What the browser saw.
    struct Page {
        var console: [String]
        var exceptions: [String]
        var log: [String]
        var failedRequests: [String]
        var dom: String

        /// Everything that would show up red in a browser's console.
        var problems: [String] { console + exceptions + log + failedRequests }
    }

    static func open(_ file: String, screenshot: String? = nil, element: (selector: String, png: String)? = nil) async throws -> Page {
        let result = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-page-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: result) }
        var arguments = ["python3", "\(repositoryRoot)/scripts/headless_page.py", URL(fileURLWithPath: file).absoluteString, "--out", result]
        if let screenshot { arguments += ["--screenshot", screenshot] }
        if let element { arguments += ["--element", element.selector, element.png] }
        let browser = try await Command.run("/usr/bin/env", arguments)
        try #require(browser.succeeded, "headless Chromium did not open the page (scripts/install-deps.sh test installs chromium): \(browser.stderr)")
        let json = try JSONParser.parse(Array(try #require(FileManager.default.contents(atPath: result))))
        func texts(_ key: String, _ field: String) -> [String] {
            (json[key]?.arrayItems ?? []).map { item in item[field]?.stringValue ?? item.stringValue ?? "" }
        }
        return Page(
            console: (json["console"]?.arrayItems ?? []).map { "console.\($0["type"]?.stringValue ?? ""): \($0["text"]?.stringValue ?? "")" },
            exceptions: (json["exceptions"]?.arrayItems ?? []).map { "\($0["text"]?.stringValue ?? "") \($0["description"]?.stringValue ?? "")" },
            log: texts("log", "text"), failedRequests: texts("failedRequests", ""), dom: json["dom"]?.stringValue ?? ""
        )
    }

    /// The page's checks: it loaded and ran its script with nothing on the console, and names every cell and cloud.
    static func expectSound(_ page: Page, cells: [String], clouds: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(page.problems.isEmpty, "\(page.problems.prefix(5))", sourceLocation: sourceLocation)
        #expect(page.dom.contains("<html lang=\"en\" data-ready=\"true\">"), "the page's script did not run to its end", sourceLocation: sourceLocation)
        let missingCells = cells.filter { !page.dom.contains("id=\"cell-\($0)\"") || !page.dom.contains("data-cell=\"\($0)\"") }
        #expect(missingCells.isEmpty, "cells not in the DOM: \(missingCells.prefix(5))", sourceLocation: sourceLocation)
        let missingClouds = clouds.filter { !page.dom.contains("id=\"cloud-\($0)\"") }
        #expect(missingClouds.isEmpty, "clouds not in the DOM: \(missingClouds.prefix(5))", sourceLocation: sourceLocation)
    }

    /// Cell names and cloud names of a plan's JSON.
    static func names(_ planJSON: String) throws -> (cells: [String], clouds: [String]) {
        let plan = try JSONParser.parse(Array(planJSON.utf8))
        let cells = (plan["placement"]?["cells"]?.objectPairs ?? []).map(\.0)
        let considered = (plan["considered"]?.objectPairs ?? []).flatMap { $0.1["clouds"]?.arrayItems ?? [] }.compactMap { $0["cloud"]?.stringValue }
        return (cells, Array(Set(considered + (plan["placement"]?["cost"]?["byCloud"]?.objectPairs ?? []).map(\.0))).sorted())
    }

    @Test func theRetailBanksReportOpensOfflineWithEveryCellCloudAndChange() async throws {
        try FileManager.default.createDirectory(atPath: Self.artifacts, withIntermediateDirectories: true)
        let plan = "\(Self.artifacts)/retail-bank.plan", page = "\(Self.artifacts)/retail-bank.html"
        let manifests = ["-f", "\(repositoryRoot)/Manifests/retail-bank", "--providers", "\(repositoryRoot)/Providers"]
        let planned = await mcloudRun(["plan"] + manifests + ["--state", PlanCommandTests.noState, "--out", plan, "--json"])
        #expect(planned.exitCode == 0)
        let reported = await mcloudRun(["report"] + manifests + ["--plan", plan, "--out", page])
        #expect(reported.exitCode == 0, "\(reported.stderr)")
        // The same count as plan's (issue 33, finding 9: the report counted the catalog's clouds).
        #expect(reported.stdout.hasPrefix("Wrote \(page): 24 cells on 6 clouds of the catalog's 9, "))
        let human = await mcloudRun(["plan", "--placement-only"] + manifests)
        #expect(human.stdout.hasPrefix("Placement of retail-bank (24 cells on 6 clouds)\n"))

        let opened = try await Self.open(page, screenshot: "\(Self.artifacts)/retail-bank.png", element: ("#map", "\(Self.artifacts)/retail-bank-map.png"))
        let (cells, _) = try Self.names(planned.stdout)
        #expect(cells.count == 24)
        let catalog = ["aws-fra", "aws-irl", "aws-use1", "cloudru-msk", "gcore-lux", "ps-ala", "sel-msk", "sel-spb", "vk-msk"]
        Self.expectSound(opened, cells: cells, clouds: catalog)
        // The laws on the audiences' data, the DR legs and the resource changes of the saved plan.
        for text in ["152-FZ: personal data only in [RU]", "GDPR: personal data only in [EU]", "class=\"leg\"", "290 to create",
                     "kubernetes.sel-msk.apps/v1.Deployment.retail-bank-ru.payments-api", "backup of payments-db@ru"] {
            #expect(opened.dom.contains(text), "the page lacks \(text)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(Self.artifacts)/retail-bank.png")).count > 50_000)
    }

    /// 50 clouds and 500 cells of the project's own generator: the page still loads clean and names them all.
    @Test func theReportOfFiftyCloudsAndFiveHundredCellsOpensOffline() async throws {
        try FileManager.default.createDirectory(atPath: Self.artifacts, withIntermediateDirectories: true)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-report-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let instance = SyntheticInstance(size: .init(clouds: 50, services: 100, databases: 25), seed: 1)
        try instance.write(to: directory)
        let plan = "\(Self.artifacts)/synthetic-50x500.plan", page = "\(Self.artifacts)/synthetic-50x500.html"
        let manifests = ["-f", "\(directory)/Manifests", "--providers", "\(directory)/Providers"]
        // Placed once: a placement-only plan saved, then drawn.
        let planned = await mcloudRun(["plan", "--placement-only", "--json", "--out", plan] + manifests)
        #expect(planned.exitCode == 0)
        let reported = await mcloudRun(["report"] + manifests + ["--plan", plan, "--out", page])
        #expect(reported.exitCode == 0, "\(reported.stderr)")
        let (cells, _) = try Self.names(planned.stdout)
        #expect(cells.count == 500)
        let clouds = instance.cloudNames
        #expect(clouds.count == 50)
        let opened = try await Self.open(page, screenshot: "\(Self.artifacts)/synthetic-50x500.png", element: ("#map", "\(Self.artifacts)/synthetic-50x500-map.png"))
        Self.expectSound(opened, cells: cells, clouds: clouds)
        #expect(opened.dom.contains("No resource changes: --placement-only reads no state"))
    }

    /// The checks above can fail: a page that logs an error, throws after loading, fetches from the network and never
    /// marks itself ready is caught on each count.
    @Test func theHeadlessCheckCatchesEveryKindOfProblem() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-broken-\(UUID().uuidString).html").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let broken = """
            <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>broken</title></head><body>
            <img src="https://example.com/logo.png"><script>console.error("boom"); setTimeout(function () { missing(); }, 10);</script>
            </body></html>
            """
        try Data(broken.utf8).write(to: URL(fileURLWithPath: file))
        let page = try await Self.open(file)
        #expect(page.console == ["console.error: boom"])
        #expect(page.exceptions.count == 1 && page.exceptions[0].contains("ReferenceError: missing is not defined"))
        #expect(page.failedRequests == ["net::ERR_INTERNET_DISCONNECTED"])
        #expect(page.log.contains { $0.contains("Failed to load resource") })
        #expect(!page.dom.contains("data-ready"))
    }

    /// One file that needs nothing else: no stylesheet, script or image from anywhere, the only URL the SVG namespace.
    @Test func theReportIsOneFileAndTheSameBytesEveryTime() async throws {
        let arguments = ["report", "-f", "\(fixtures)/considered/Manifests", "--providers", "\(fixtures)/considered/Providers", "--out", "-"]
        let first = await mcloudRun(arguments)
        #expect(first.exitCode == 0)
        #expect(await mcloudRun(arguments).stdout == first.stdout)
        let html = first.stdout
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("<style>") && html.contains("<script>"))
        #expect(html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").range(of: "http") == nil)
        for reference in ["<link", " src=", "@import", "url(http"] {
            #expect(!html.contains(reference), "the page refers to \(reference)")
        }
        for verdict in ["v-chosen", "v-runner-up", "v-full", "v-no-backup"] { #expect(html.contains(verdict)) }
    }

    @Test func aSavedPlanOfAnotherApplicationIsRefused() async throws {
        let plan = NSTemporaryDirectory() + "mcloud-shop-\(UUID().uuidString).plan"
        defer { try? FileManager.default.removeItem(atPath: plan) }
        let planned = await mcloudRun(["plan", "--placement-only", "-f", "\(repositoryRoot)/Manifests/shop", "--providers", "\(repositoryRoot)/Providers", "--out", plan])
        #expect(planned.exitCode == 0)
        let reported = await mcloudRun(["report", "-f", "\(repositoryRoot)/Manifests/telemed", "--providers", "\(repositoryRoot)/Providers", "--plan", plan, "--out", "-"])
        #expect(reported.exitCode == 1)
        #expect(reported.stdout == "")
        #expect(reported.stderr == "error: \(plan) plans application shop, but the manifests describe telemed\n")
    }
}
