import MCloudCore
import Testing

/// Latency between clouds: a listed figure read from either side, else the default of the pair's relation.
@Suite struct CloudLatencyTests {
    static func cloud(_ name: String, vendor: String, region: String, jurisdiction: [String], listing: [String: Double] = [:]) -> Cloud {
        Cloud(
            name: name, vendor: vendor, api: .openstack, jurisdiction: jurisdiction, region: region, zones: [],
            offers: Cloud.Offers(), capacity: Cloud.Capacity(vcpu: 1, memoryGiB: 1, storageGiB: 1), pricing: Cloud.Pricing(currency: "USD"),
            latencyMs: [:], cloudLatencyMs: listing, endpoints: Cloud.Endpoints(), location: SourceLocation(file: "c.yaml", line: 1, column: 1)
        )
    }

    static let msk = cloud("vk-msk", vendor: "vk", region: "ru-msk", jurisdiction: ["RU"], listing: ["ps-ala": 62])
    static let ala = cloud("ps-ala", vendor: "pscloud", region: "kz-ala-1", jurisdiction: ["KZ"])

    @Test func aListedFigureCountsBothWays() {
        #expect(CloudLatency.milliseconds(Self.msk, Self.ala) == 62)
        #expect(CloudLatency.milliseconds(Self.ala, Self.msk) == 62)
        #expect(CloudLatency.milliseconds(Self.ala, Self.ala) == 0)
    }

    @Test(arguments: [
        (cloud("vk-msk2", vendor: "vk", region: "ru-msk", jurisdiction: ["RU"]), CloudLatency.Relation.sameRegion, 2.0),
        (cloud("sel-spb", vendor: "selectel", region: "ru-3", jurisdiction: ["RU"]), .sameJurisdiction, 30),
        (cloud("vk-ala", vendor: "vk", region: "kz-1", jurisdiction: ["KZ"]), .sameVendor, 60),
        (cloud("aws-fra", vendor: "aws", region: "eu-central-1", jurisdiction: ["DE", "EU"]), .other, 100),
    ])
    func anUnlistedPairTakesTheDefaultOfItsRelation(_ other: Cloud, _ relation: CloudLatency.Relation, _ ms: Double) {
        #expect(CloudLatency.relation(Self.msk, other) == relation)
        #expect(CloudLatency.milliseconds(other, Self.msk) == ms)
    }

    @Test func onlyCloudsSharingNoJurisdictionCrossABorder() {
        let fra = Self.cloud("aws-fra", vendor: "aws", region: "eu-central-1", jurisdiction: ["DE", "EU"])
        let lux = Self.cloud("gcore-lux", vendor: "gcore", region: "lux-2", jurisdiction: ["LU", "EU"])
        #expect(!CloudLatency.crossesBorder(fra, lux))
        #expect(!CloudLatency.crossesBorder(Self.msk, Self.cloud("sel-spb", vendor: "selectel", region: "ru-3", jurisdiction: ["RU"])))
        #expect(CloudLatency.crossesBorder(fra, Self.msk))
    }
}
