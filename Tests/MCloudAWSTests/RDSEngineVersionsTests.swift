import MCloudHTTP
import Testing
@testable import MCloudAWS

/// `RDSClient.engineVersions` against DescribeDBEngineVersions answers shaped as RDS documents them (moto 5.2.5 does
/// not implement the action, so these are the recorded shape's only check).
struct RDSEngineVersionsTests {
    static func page(_ entries: [(engine: String, version: String)], marker: String? = nil) -> HTTPResponse {
        let items = entries.map { entry in
            "<DBEngineVersion><Engine>\(entry.engine)</Engine><EngineVersion>\(entry.version)</EngineVersion>"
                + "<MajorEngineVersion>\(entry.version.split(separator: ".").first ?? "")</MajorEngineVersion><Status>available</Status></DBEngineVersion>"
        }.joined()
        return .xml(
            200,
            "<DescribeDBEngineVersionsResponse xmlns=\"http://rds.amazonaws.com/doc/2014-10-31/\"><DescribeDBEngineVersionsResult>"
                + "<DBEngineVersions>\(items)</DBEngineVersions>\(marker.map { "<Marker>\($0)</Marker>" } ?? "")"
                + "</DescribeDBEngineVersionsResult><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></DescribeDBEngineVersionsResponse>"
        )
    }

    @Test func everyPageIsReadAndOnlyTheAskedEnginesVersionsKept() async throws {
        let transport = ScriptedTransport([
            Self.page([("postgres", "15.8"), ("postgres", "16.4")], marker: "m1"),
            Self.page([("postgres", "17.2"), ("aurora-postgresql", "16.4")]),
        ])
        let rds = RDSClient(client: TestConfiguration.client(transport, region: "eu-central-1"))
        #expect(try await rds.engineVersions(engine: "postgres") == ["15.8", "16.4", "17.2"])
        let forms = transport.sent.map { String(decoding: $0.body ?? [], as: UTF8.self) }
        #expect(forms.count == 2)
        #expect(forms.allSatisfy { $0.contains("Action=DescribeDBEngineVersions") && $0.contains("Engine=postgres") })
        #expect(!forms[0].contains("Marker") && forms[1].contains("Marker=m1"))
    }

    @Test func aListingThatRepeatsItsMarkerIsStoppedNamingTheOperation() async throws {
        let page = Self.page([("mysql", "8.0.39")], marker: "same")
        let rds = RDSClient(client: TestConfiguration.client(ScriptedTransport([page, page, page])))
        let error = await #expect(throws: AWSError.self) { try await rds.engineVersions(engine: "mysql") }
        #expect(error?.description.contains("rds DescribeDBEngineVersions") == true)
    }
}
