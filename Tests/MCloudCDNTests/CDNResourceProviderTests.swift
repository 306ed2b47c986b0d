import MCloudCDN
import MCloudCDNProvider
import MCloudCore
import MCloudProvider
import Testing

/// The `cdn` provider on the G-Core-style test server: what refresh reports compares with the body as the engine
/// compares it.
@Suite struct CDNResourceProviderTests {
    static func body(ttl: Int = 86400, weight: Int = 2) -> JSONValue {
        .object([
            ("apiVersion", .string("infrastructure.mcloud.io/v1")), ("kind", .string("CDNResource")),
            ("metadata", .object([
                ("name", .string("shop.images")), ("address", .string("cdn.lab.CDNResource.shop.images")), ("cloud", .string("lab")), ("provider", .string("cdn")),
                ("labels", .object([("app.kubernetes.io/managed-by", .string("mcloud")), ("app.kubernetes.io/part-of", .string("shop"))])),
            ])),
            ("spec", .object([
                ("audiences", .array([.string("eu")])),
                ("origins", .array([.object([
                    ("service", .string("web")), ("cloud", .string("lab")), ("ingress", .string("kubernetes.lab.networking.k8s.io/v1.Ingress.shop-eu.web")),
                    ("path", .string("/")), ("weight", .int(weight)),
                ])])),
                ("cache", .array([.object([("path", .string("/static/*")), ("ttlSeconds", .int(ttl))])])),
            ])),
        ])
    }

    static func desired(_ body: JSONValue) -> DesiredResource {
        DesiredResource(address: "cdn.lab.CDNResource.shop.images", provider: "cdn", cloud: "lab", type: "CDNResource", body: body, dependencies: [])
    }

    static func compares(_ observed: ObservedResource, _ body: JSONValue) -> Bool {
        FieldDiff.same(FieldDiff.projected(observed.attributes, onto: body), body)
    }

    @Test("refresh reports an applied resource equal to its body; a TTL changed on the CDN, or a weight in the manifests, differs")
    func refreshComparesWithTheBody() async throws {
        let bed = try CDNTestBed()
        let service = bed.service()
        let provider = CDNResourceProvider(cloud: "lab") { service }
        let created = try await provider.create(Self.desired(Self.body()))
        let record = ResourceState(address: created.address, provider: "cdn", cloud: "lab", providerID: created.providerID, attributes: Dictionary(uniqueKeysWithValues: Self.body().objectPairs))
        let observed = try await provider.refresh(application: "shop", desired: [Self.desired(Self.body())], recorded: [record])
        #expect(observed.map(\.address) == ["cdn.lab.CDNResource.shop.images"])
        let found = try #require(observed.first)
        #expect(Self.compares(found, Self.body()), "\(found.attributes.serialized())")
        #expect(!Self.compares(found, Self.body(weight: 3)))
        #expect(try await provider.refresh(application: "other", desired: [], recorded: []).isEmpty)

        _ = try await bed.service().ensure(try CDNResourceBody(Self.body(ttl: 60), address: created.address).spec(cloud: "lab"), id: created.providerID)
        let drifted = try #require(try await provider.refresh(application: "shop", desired: [Self.desired(Self.body())], recorded: [record]).first)
        #expect(drifted.attributes.value(at: ["spec", "cache"])?.arrayItems.first?["ttlSeconds"] == .int(60))

        try await provider.delete(record)
        #expect(try await provider.refresh(application: "shop", desired: [], recorded: [record]).isEmpty)
    }

    @Test("a missing token is reported on first use, naming the variable and not before")
    func tokenCheckedOnFirstUse() async throws {
        let cloud = Cloud(
            name: "lab", vendor: "gcore", api: .openstack, jurisdiction: ["EU"], region: "r", zones: [], offers: .init(), capacity: .init(vcpu: 1, memoryGiB: 1, storageGiB: 1),
            pricing: .init(currency: "EUR", vcpuHour: 0, memoryGiBHour: 0), latencyMs: [:],
            endpoints: .init(cdnURL: "http://127.0.0.1:9/cdn", cdnTokenEnv: "LAB_CDN_TOKEN"), location: SourceLocation(file: "lab.yaml", line: 1, column: 1)
        )
        let provider = try CDNProviderCatalog(environment: ["MCLOUD_ALLOWED_TOKEN_ENV": "LAB_CDN_TOKEN"]).provider(named: "cdn", for: cloud)
        await #expect {
            _ = try await provider.refresh(application: "shop", desired: [], recorded: [])
        } throws: { error in
            (error as? ProviderError)?.kind == .unauthorized && (error as? ProviderError)?.message.contains("LAB_CDN_TOKEN") == true
        }
        var bare = cloud
        bare.endpoints = .init()
        #expect(throws: ProviderError.self) { try CDNProviderCatalog(environment: [:]).provider(named: "cdn", for: bare) }
    }
}
