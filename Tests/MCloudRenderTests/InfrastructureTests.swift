import MCloudCore
import MCloudPlanner
import MCloudProvider
@testable import MCloudRender
import Testing

/// The resources outside Kubernetes, on the hand-placed shop (RenderFixtures.shopPlacement) and the examples.
@Suite struct InfrastructureTests {
    static func shop() throws -> Rendering {
        Rendering(model: try RenderFixtures.shop(), placement: RenderFixtures.shopPlacement)
    }

    /// c1 sells managed PostgreSQL, c2 and c3 do not: their databases are VMs, one per copy, each with its volume.
    @Test(arguments: [
        ("c1", ["BackupBucket shop-eu.orders-db", "BackupSchedule shop-ru.orders-db", "ManagedDatabase shop-ru.orders-db", "SecurityGroup shop-ru.orders-db"]),
        ("c2", [
            "BackupBucket shop-ru.orders-db", "DatabaseServer shop.rates-db.0", "DatabaseServer shop.rates-db.1", "SecurityGroup shop.rates-db",
            "Volume shop.rates-db.0", "Volume shop.rates-db.1",
        ]),
        ("c3", [
            "BackupSchedule shop-eu.orders-db", "CDNResource shop.assets", "DatabaseServer shop-eu.orders-db.0", "DatabaseServer shop-eu.orders-db.1",
            "SecurityGroup shop-eu.orders-db", "Volume shop-eu.orders-db.0", "Volume shop-eu.orders-db.1",
        ]),
    ])
    func eachCloudGetsTheResourcesItsPlacementImplies(_ cloud: String, _ expected: [String]) throws {
        let resources = try Self.shop().infrastructure.first { $0.cloud == cloud }?.resources ?? []
        #expect(resources.map { "\($0.kind) \($0.name)" }.sorted() == expected)
    }

    @Test func standbysGoToTheNextZoneAndFollowThePrimary() throws {
        let resources = try Self.shop().allResources
        let primary = try #require(resources.first { $0.name == "shop.rates-db.0" && $0.kind == "DatabaseServer" })
        let standby = try #require(resources.first { $0.name == "shop.rates-db.1" && $0.kind == "DatabaseServer" })
        #expect(primary.body.at("spec", "role")?.stringValue == "primary")
        #expect(primary.body.at("spec", "zone")?.stringValue == "c2-a")
        #expect(primary.body.at("spec", "dnsName")?.stringValue == "rates-db.shop.c2.mcloud.internal")
        #expect(standby.body.at("spec", "role")?.stringValue == "standby")
        #expect(standby.body.at("spec", "zone")?.stringValue == "c2-b")
        #expect(standby.body.at("spec", "replicaOf")?.stringValue == primary.address)
        #expect(standby.body.at("spec", "dnsName") == nil)
        // The primary names its standby and admits it for replication; the standby names the primary's server and
        // port, admits the primary from the same ranges (for a switchover), and has the primary's certificate names,
        // over whose TLS it replicates.
        let replication = try #require(ResourceBody(primary.body.json).replication)
        let ranges = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]
        #expect(replication == .primary(standbys: ["standby_1"], cidrs: ranges))
        #expect(ResourceBody(standby.body.json).replication == .standby(name: "standby_1", primary: "shop.rates-db.0", port: 6379, cidrs: ranges))
        // A standby's body rendered before it had `cidrs` reads as the private ranges.
        let older = ResourceBody(standby.body.json).settingSpec(["replication", "cidrs"], nil)
        #expect(older.spec["replication"]?["cidrs"] == nil)
        #expect(older.replication == .standby(name: "standby_1", primary: "shop.rates-db.0", port: 6379, cidrs: ranges))
        #expect(ResourceBody(standby.body.json).databaseAccess == ResourceBody(primary.body.json).databaseAccess)
        #expect(ResourceBody(standby.body.json).databaseAccess != nil)
        #expect(standby.body.at("spec", "backup") == nil)
    }

    /// A PostgreSQL standby holds its leg's keys, as its primary does, so that a switchover's new primary goes on
    /// archiving; a Redis standby holds none. Over plain HTTP (a loopback endpoint) the cell dumps, and no standby does.
    @Test func aPostgreSQLStandbyHoldsTheArchivesKeysAndNoOtherStandbyDoes() throws {
        let resources = try Self.shop().allResources
        func backup(_ name: String) -> String? {
            resources.first { $0.kind == "DatabaseServer" && $0.name == name }?.body.at("spec", "backup").map { $0.json.serialized(pretty: false) }
        }
        #expect(backup("shop-eu.orders-db.0") != nil)
        #expect(backup("shop-eu.orders-db.1") == backup("shop-eu.orders-db.0"))
        #expect(backup("shop.rates-db.1") == nil)
        let plain = Rendering(model: try RenderFixtures.shop(objectStorageURL: "http://127.0.0.1:9000"), placement: RenderFixtures.shopPlacement).allResources
        let standby = try #require(plain.first { $0.kind == "DatabaseServer" && $0.name == "shop-eu.orders-db.1" })
        #expect(standby.body.at("spec", "backup") == nil)
    }

    @Test func aSecurityGroupAdmitsTheClustersOfTheServicesThatUseTheDatabase() throws {
        let resources = try Self.shop().allResources
        func rules(_ name: String) -> [String] {
            let group = resources.first { $0.kind == "SecurityGroup" && $0.name == name }
            return (group?.body.at("spec", "ingress")?.items ?? []).map { rule in
                let from = rule["from"]?.fields.first.map { "\($0.0)=\($0.1.stringValue ?? "")" } ?? "?"
                return "\(rule["protocol"]?.stringValue ?? "?")/\(rule["port"]?.intValue ?? 0) from \(from)"
            }
        }
        // orders-db@ru: web@ru on c1 and c2, api@ru on c1, reports on c2. Managed: no replication rule of ours.
        #expect(rules("shop-ru.orders-db") == ["TCP/5432 from kubernetesCluster=c1", "TCP/5432 from kubernetesCluster=c2"])
        // rates-db: rates on c1 and c3; two VMs replicate within the group.
        #expect(rules("shop.rates-db") == [
            "TCP/6379 from kubernetesCluster=c1", "TCP/6379 from kubernetesCluster=c3", "TCP/6379 from securityGroup=openstack.c2.SecurityGroup.shop.rates-db",
        ])
    }

    @Test func backupsAreScheduledInThePrimarysCloudAndCopiedToTheBackupCloudsBucket() throws {
        let resources = try Self.shop().allResources
        let schedule = try #require(resources.first { $0.kind == "BackupSchedule" && $0.name == "shop-ru.orders-db" })
        #expect(schedule.cloud == "c1")
        #expect(schedule.body.at("spec", "schedule")?.stringValue == "0 3 * * *")
        #expect(schedule.body.at("spec", "retentionDays")?.intValue == 7)
        #expect(schedule.body.at("spec", "database")?.stringValue == "openstack.c1.ManagedDatabase.shop-ru.orders-db")
        #expect(schedule.body.at("spec", "copyTo")?.stringValue == "openstack.c2.BackupBucket.shop-ru.orders-db")
        let bucket = try #require(resources.first { $0.kind == "BackupBucket" && $0.name == "shop-ru.orders-db" })
        #expect(bucket.cloud == "c2")
        #expect(bucket.body.at("spec", "source")?.stringValue == "openstack.c1.ManagedDatabase.shop-ru.orders-db")
        #expect(bucket.body.at("spec", "differentVendor") != nil)
    }

    @Test func theCDNFrontsTheIngressOfEveryClusterRunningItsOriginForItsAudiences() throws {
        let cdn = try #require(try Self.shop().allResources.first { $0.kind == "CDNResource" })
        #expect(cdn.address == "cdn.c3.CDNResource.shop.assets")
        let origins = (cdn.body.at("spec", "origins")?.items ?? []).map {
            "\($0["ingress"]?.stringValue ?? "?") \($0["path"]?.stringValue ?? "?") x\($0["weight"]?.intValue ?? 0)"
        }
        // web@eu is not an origin: the CDN serves only ru.
        #expect(origins == [
            "kubernetes.c1.networking.k8s.io/v1.Ingress.shop-ru.web /shop x2", "kubernetes.c2.networking.k8s.io/v1.Ingress.shop-ru.web /shop x1",
        ])
    }

    /// Addresses are unique, every reference to another resource or an Ingress resolves, and every ConfigMap
    /// host is a name in the cell's namespace whose EndpointSlice points at resources the rendering has.
    @Test(arguments: RenderFixtures.examples)
    func everyAddressIsUniqueAndEveryReferenceResolves(_ name: String) throws {
        let (model, plan) = try RenderFixtures.example(name)
        let rendering = Rendering(model: model, placement: Placement(plan))
        let addresses = rendering.allResources.map(\.address)
        #expect(Set(addresses).count == addresses.count)
        let known = Set(addresses + rendering.allObjects.map { $0.object.address(cloud: $0.cloud) })
        for resource in rendering.allResources {
            #expect(resource.address == "\(resource.provider).\(resource.cloud).\(resource.kind).\(resource.name)")
            let spec = try #require(resource.body["spec"])
            let references = ["volume", "securityGroup", "replicaOf", "database", "copyTo", "source"].compactMap { spec[$0]?.stringValue }
                + (spec["origins"]?.items.compactMap { $0["ingress"]?.stringValue } ?? [])
            for reference in references {
                #expect(known.contains(reference), "\(resource.address) refers to \(reference)")
            }
        }
        for (cloud, configMap) in rendering.allObjects where configMap.kind == "ConfigMap" {
            let hosts = configMap.body["data"]?.fields.filter { $0.0.hasSuffix("_HOST") }.compactMap(\.1.stringValue) ?? []
            #expect(!hosts.isEmpty)
            for host in hosts {
                let parts = host.split(separator: ".").map(String.init)
                #expect(parts.count == 3 && parts[1] == configMap.namespace && parts[2] == "svc", "\(host)")
                let slice = try #require(rendering.object(on: cloud, "EndpointSlice", configMap.namespace, parts[0]), "\(cloud) \(host)")
                let sources = slice.body.at("metadata", "annotations", "mcloud.io/endpoints-from")?.stringValue ?? ""
                #expect(sources.split(separator: ",").allSatisfy { known.contains(String($0)) }, "\(sources)")
            }
        }
    }

    /// The catalog's endpoints (kubeconfig contexts, CDN APIs and their token variables) stay out of the tree.
    @Test func noEndpointOrCredentialReferenceReachesTheTree() throws {
        let model = try RenderFixtures.shop()
        let files = Rendering(model: model, placement: RenderFixtures.shopPlacement).tree.files
        let secrets = model.clouds.flatMap { [$0.endpoints.kubernetesContext, $0.endpoints.cdnURL, $0.endpoints.cdnTokenEnv].compactMap { $0 } }
        #expect(secrets.count == 9)
        for file in files {
            for secret in secrets { #expect(!file.contents.contains(secret), "\(file.path) holds \(secret)") }
        }
    }
}
