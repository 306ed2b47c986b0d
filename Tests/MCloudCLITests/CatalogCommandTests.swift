import Foundation
import MCloudCore
import MCloudProvider
import Testing
@testable import MCloudCLI

/// `mcloud catalog offers`: the catalog's managed offers beside an API's, compared by series.
@Suite struct CatalogCommandTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var dbaas: [String]
        var versions: [String: [String]]
        var sold: [String: [String]]
        /// ENGINE, CATALOG, API and DIFFERENCE of each row.
        var rows: [[String]]
    }

    @Test(arguments: [
        Case(
            testDescription: "an API's releases fall under the series the catalog lists",
            dbaas: ["postgresql"], versions: ["postgresql": ["15", "16"]], sold: ["postgresql": ["15.8", "16.4", "16.2"]],
            rows: [["postgresql", "15, 16", "15, 16", "in step"]]
        ),
        Case(
            testDescription: "a series listed and not sold, and one sold and not listed",
            dbaas: ["postgresql"], versions: ["postgresql": ["9.6", "16"]], sold: ["postgresql": ["17.2", "16.4", "9.6.24", "10.23"]],
            rows: [["postgresql", "9.6, 16", "9.6, 10, 16, 17", "sold, not listed: 10, 17"]]
        ),
        Case(
            testDescription: "a catalog listing an engine in any version",
            dbaas: ["mysql"], versions: [:], sold: ["mysql": ["8.0.39", "10.11.9", "8.4.2"]],
            rows: [["mysql", "any version", "8.0, 8.4, 10.11", "offers.dbaas takes any version; the API sells only these"]]
        ),
        Case(
            testDescription: "an engine the API does not sell, and one the catalog leaves out",
            dbaas: ["redis"], versions: ["redis": ["7.2"]], sold: ["postgresql": ["16"], "cassandra": ["4.0"]],
            rows: [["redis", "7.2", "-", "the API sells no redis"], ["postgresql", "-", "16", "sold, not in offers.dbaas"]]
        ),
        Case(
            testDescription: "a listed series no release is left of",
            dbaas: ["mysql"], versions: ["mysql": ["5.7", "8.0"]], sold: ["mysql": ["8.0.39"]],
            rows: [["mysql", "5.7, 8.0", "8.0", "listed, not sold: 5.7"]]
        ),
    ])
    func theCatalogIsComparedWithTheAPIBySeries(_ check: Case) {
        var cloud = Self.cloud
        cloud.offers = Cloud.Offers(dbaas: check.dbaas, dbaasVersions: check.versions)
        let compared = OffersView.compare(cloud, ManagedOffers(source: "test API", versions: check.sold))
        let rows = compared.rows.map { [$0.engine, $0.catalog.map { $0.isEmpty ? "any version" : $0.joined(separator: ", ") } ?? "-", $0.api?.joined(separator: ", ") ?? "-", $0.difference ?? "in step"] }
        #expect(rows == check.rows)
        #expect(compared.differs == check.rows.contains { $0[3] != "in step" })
    }

    @Test func theReportNamesEachCloudsSourceAndCountsTheCloudsThatDiffer() {
        let inStep = OffersView.CloudOffers(cloud: "a", source: "RDS DescribeDBEngineVersions", rows: [.init(engine: "postgresql", catalog: ["16"], api: ["16"])])
        let differs = OffersView.CloudOffers(cloud: "b", source: "Trove GET /datastores", rows: [.init(engine: "redis", catalog: ["7.2"], api: nil)])
        let unread = OffersView.CloudOffers(cloud: "c", source: "", rows: [], failure: "cloud c has no endpoints.aws.profile in the catalog")
        #expect(OffersView.render([inStep, differs, unread]) == """
            a: RDS DescribeDBEngineVersions
              ENGINE      CATALOG  API  DIFFERENCE
              postgresql  16       16   in step

            b: Trove GET /datastores
              ENGINE  CATALOG  API  DIFFERENCE
              redis   7.2      -    the API sells no redis
              as the API sells it: dbaas: []

            c: not read: cloud c has no endpoints.aws.profile in the catalog

            1 of 2 clouds read differs from the catalog; 1 could not be read.

            """)
        #expect(OffersView.render([inStep]).hasSuffix("\nThe catalog's managed offers match the API of 1 cloud read.\n"))
    }

    @Test func aMalformedOffersEntryStopsTheCommandAtItsPositionBeforeAnyCloudIsAsked() async throws {
        let folder = NSTemporaryDirectory() + "mcloud-catalog-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let catalog = try String(contentsOfFile: "\(fixtures)/aws/providers/aws.yaml", encoding: .utf8)
        try catalog.replacingOccurrences(of: "dbaas: [postgresql]", with: "dbaas: { postgresql: [16] }").write(toFile: "\(folder)/aws.yaml", atomically: true, encoding: .utf8)
        let run = await mcloudRun(["catalog", "offers", "--providers", folder])
        #expect(run.exitCode == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(#"\#(folder)/aws.yaml:15:27: error: spec.offers.dbaas.postgresql[0] must be a string, found an integer (16); quote it: "16""#), "\(run.stderr)")
    }

    @Test func aCloudTheCatalogDoesNotHaveIsRefusedWithTheNearestName() async {
        let run = await mcloudRun(["catalog", "offers", "--providers", "\(fixtures)/aws/providers", "--cloud", "aws-frs"])
        #expect(run.exitCode == 1)
        #expect(run.stderr.hasPrefix("error: the catalog has no cloud 'aws-frs'; did you mean 'aws-fra'?"), "\(run.stderr)")
    }

    @Test func anUnknownSubcommandIsAUsageError() async {
        let run = await mcloudRun(["catalog", "ofers"])
        #expect(run.exitCode == 1)
        #expect(run.stderr.hasPrefix("error: unknown catalog subcommand 'ofers'; did you mean 'offers'?"), "\(run.stderr)")
    }

    static let cloud = Cloud(
        name: "test", vendor: "test", api: .aws, jurisdiction: ["EU"], region: "r", zones: ["a"], offers: Cloud.Offers(),
        capacity: Cloud.Capacity(vcpu: 1, memoryGiB: 1, storageGiB: 1), pricing: Cloud.Pricing(currency: "EUR"), latencyMs: [:],
        endpoints: Cloud.Endpoints(), location: SourceLocation(file: "test.yaml", line: 1, column: 1)
    )
}
