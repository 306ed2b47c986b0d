import MCloudCore
import MCloudOpenStack
import MCloudProvider
import Testing
@testable import MCloudOpenStackProvider

/// The parts of the OpenStack provider that decide without a cloud: how specs become rules, names and reasons.
struct ProviderLogicTests {
    @Test("a Neutron rule reads back as the spec items its description lists, or as its remote", arguments: [
        (SecurityGroupRule(portMin: 5432, portMax: 5432, remotePrefix: "192.0.2.0/28", description: "mcloud: kubernetesCluster sel-msk; kubernetesCluster sel-spb"),
         [
            IngressRule(protocolName: "tcp", port: 5432, source: "kubernetesCluster", value: "sel-msk", cidrs: ["192.0.2.0/28"]),
            IngressRule(protocolName: "tcp", port: 5432, source: "kubernetesCluster", value: "sel-spb", cidrs: ["192.0.2.0/28"]),
         ]),
        (SecurityGroupRule(portMin: 22, portMax: 22, remotePrefix: "10.0.0.0/8", description: "opened by hand"),
         [IngressRule(protocolName: "tcp", port: 22, source: "cidr", value: "10.0.0.0/8")]),
        (SecurityGroupRule(portMin: 6379, portMax: 6379, remoteGroupID: "g-1"),
         [IngressRule(protocolName: "tcp", port: 6379, source: "remoteGroupID", value: "g-1")]),
    ])
    func ruleItems(rule: SecurityGroupRule, items: [IngressRule]) {
        #expect(IngressRule.items(of: rule) == items)
    }

    @Test("a cluster's egress ranges each get a rule, and clusters sharing a range share its rule, which names them all")
    func sharedRule() throws {
        let ranges = ["ps-ala": ["10.1.0.0/16", "10.2.0.0/16"], "sel-msk": ["10.2.0.0/16"]]
        let items = try ["ps-ala", "sel-msk"].map { cluster in
            let from: JSONValue = .object([("kubernetesCluster", .string(cluster)), ("cidrs", .array((ranges[cluster] ?? []).map(JSONValue.string)))])
            return try #require(IngressRule(spec: .object([("protocol", .string("TCP")), ("port", .int(6379)), ("from", from)])))
        }
        var owners: [NeutronKey: [IngressRule]] = [:]
        for item in items {
            for key in item.remotes(groupID: nil) { owners[key, default: []].append(item) }
        }
        #expect(Set(owners.keys.compactMap(\.remotePrefix)) == ["10.1.0.0/16", "10.2.0.0/16"])
        let shared = try #require(owners.first { $0.key.remotePrefix == "10.2.0.0/16" })
        let rule = shared.key.rule(for: shared.value)
        #expect(IngressRule.items(of: rule).map(\.value) == ["ps-ala", "sel-msk"])
        let readBack = IngressRule.merged(owners.sorted { ($0.key.remotePrefix ?? "") < ($1.key.remotePrefix ?? "") }.flatMap { IngressRule.items(of: $0.key.rule(for: $0.value)) })
        #expect(readBack == items)
    }

    /// Found at plan time, not when apply reaches the group: a rule from a cluster without egress addresses.
    @Test("a group open to a cluster whose egress addresses the catalog lacks cannot be delivered")
    func clusterWithoutEgressAddresses() {
        func group(_ from: JSONValue) -> ResourceBody {
            ResourceBody(.object([("kind", .string("SecurityGroup")), ("spec", .object([("ingress", .array([.object([("protocol", .string("TCP")), ("port", .int(5432)), ("from", from)])]))]))]))
        }
        let bare = SecurityGroupKind.problems(group(.object([("kubernetesCluster", .string("lab"))])))
        #expect(bare == ["cloud lab's catalog entry lists no endpoints.kubernetes.egressCIDRs, so mcloud does not know where its traffic comes from; it opens a database port only to the addresses of the clusters that use it"])
        #expect(SecurityGroupKind.problems(group(.object([("kubernetesCluster", .string("lab")), ("cidrs", .array([.string("10.0.0.0/8")]))]))).isEmpty)
        #expect(SecurityGroupKind.problems(group(.object([("securityGroup", .string("openstack.lab.SecurityGroup.x"))]))).isEmpty)
    }

    @Test("live rules are reported in the spec's order and spelling, extra ones after")
    func ingressOrder() {
        let group = SecurityGroup(id: "g", name: "db", rules: [
            SecurityGroupRule(portMin: 22, portMax: 22, remotePrefix: "10.0.0.0/8"),
            SecurityGroupRule(portMin: 5432, portMax: 5432, remotePrefix: "198.51.100.0/28", description: "mcloud: kubernetesCluster b; kubernetesCluster a"),
            SecurityGroupRule(direction: "egress", protocolName: nil),
        ])
        let spec: [JSONValue] = ["a", "b"].map {
            .object([("protocol", .string("TCP")), ("port", .int(5432)), ("from", .object([("kubernetesCluster", .string($0)), ("cidrs", .array([.string("198.51.100.0/28")]))]))])
        }
        let read = SecurityGroupKind.ingress(of: group, orderedAs: spec)
        #expect(Array(read.prefix(2)) == spec)
        #expect(read.last?["from"]?["cidr"] == JSONValue.string("10.0.0.0/8"))
        #expect(read.count == 3)
    }

    @Test("bucket names are S3-safe and keep the resource's name", arguments: [
        ("retail-bank-ru.accounts-db", "mcloud-retail-bank-ru-accounts-db"),
        ("Shop.EU_cache", "mcloud-shop-eu-cache"),
        (String(repeating: "a", count: 70), "mcloud-" + String(repeating: "a", count: 56)),
    ])
    func bucketName(name: String, bucket: String) {
        #expect(BackupBucketKind.bucketName(name) == bucket)
    }

    @Test("a Trove version satisfies the spec's version when equal or a point release of it", arguments: [
        ("16", "16", true), ("16.4", "16", true), ("160", "16", false), ("7.2.4", "7.2", true), ("7.0", "7.2", false),
    ])
    func versions(offered: String, wanted: String, satisfies: Bool) {
        #expect(ManagedDatabaseKind.version(offered, satisfies: wanted) == satisfies)
    }

    @Test("the newest point release is the one chosen")
    func newest() {
        #expect(["16.9", "16.10", "16.2"].max(by: ManagedDatabaseKind.older) == "16.10")
    }

    @Test("volumes and servers are replaced only for what cannot change in place")
    func replacements() {
        let volume = ResourceBody(.object([("kind", .string("Volume")), ("spec", .object([("sizeGiB", .int(50)), ("zone", .string("a"))]))]))
        #expect(VolumeKind.replacementReasons(desired: volume.settingSpec(["sizeGiB"], .int(80)), current: volume).isEmpty)
        #expect(VolumeKind.replacementReasons(desired: volume.settingSpec(["sizeGiB"], .int(20)), current: volume).first?.contains("cannot shrink") == true)
        #expect(VolumeKind.replacementReasons(desired: volume.settingSpec(["zone"], .string("b")), current: volume) == ["spec.zone cannot change on a volume"])
        let server = ResourceBody(.object([("spec", .object([("engine", .string("redis")), ("version", .string("7.2")), ("flavor", .object([("vcpu", .int(2))]))]))]))
        #expect(DatabaseServerKind.replacementReasons(desired: server.settingSpec(["flavor", "vcpu"], .int(4)), current: server).isEmpty)
        #expect(DatabaseServerKind.replacementReasons(desired: server.settingSpec(["version"], .string("7.4")), current: server) == ["spec.version cannot change on a running database server"])
        // Users and replication roles live in the user data: a new dependent makes the server again on its volume,
        // rather than an update that would never reach it. A first dependent too, on a server made without one.
        let access = ResourceBody.DatabaseServerField.access(DatabaseAccess(cell: "db", names: ["db.ns.svc"], clients: [
            DatabaseAccess.Client(service: "api", user: "api", database: "api", cidrs: ["10.0.0.0/8"]),
        ]))
        let served = server.settingSpec([access.key], access.value)
        let reason = "spec.access changed: its clients' users and its certificate live in the server's user data, which cannot change"
        #expect(DatabaseServerKind.replacementReasons(desired: served, current: served).isEmpty)
        #expect(DatabaseServerKind.replacementReasons(desired: served, current: server) == [reason])
        #expect(DatabaseServerKind.replacementReasons(desired: served.settingSpec([access.key, "clients"], .array([])), current: served) == [reason])
    }

    @Test("settingSpec sets nested fields and removes a field given nil")
    func settingSpec() {
        let body = ResourceBody(.object([("spec", .object([("a", .int(1))]))]))
        let changed = body.settingSpec(["b", "c"], .string("x")).settingSpec(["a"], nil)
        #expect(changed.document == .object([("spec", .object([("b", .object([("c", .string("x"))]))]))]))
    }

    @Test("a new image or new backup settings replace the server; its size does not")
    func imageAndBackupReplace() {
        let image: JSONValue = .object([("family", .string("debian-12")), ("properties", .object([("os_distro", .string("debian"))]))])
        let server = ResourceBody(.object([("spec", .object([("engine", .string("redis")), ("version", .string("7.0")), ("image", image)]))]))
        #expect(DatabaseServerKind.replacementReasons(desired: server.settingSpec(["image", "family"], .string("ubuntu-24.04")), current: server) == ["spec.image: a server cannot change its image"])
        #expect(DatabaseServerKind.replacementReasons(desired: server.settingSpec(["backup", "schedule"], .string("0 1 * * *")), current: server) == ["spec.backup is in the server's user data, which cannot change"])
        #expect(DatabaseServerKind.replacementReasons(desired: server, current: server.settingSpec(["image"], nil)).isEmpty, "a state from before spec.image")
    }

    @Test("OpenStack failures map to the engine's kinds", arguments: [
        (OpenStackError.capacity(APIFault(operation: "o", status: 403, kind: "forbidden", message: "Quota exceeded for instances", requestID: nil)), ProviderError.Kind.capacity),
        (OpenStackError.api(APIFault(operation: "o", status: 401, kind: nil, message: "no", requestID: nil)), .unauthorized),
        (OpenStackError.configuration("no cloud", at: nil, file: nil), .unavailable),
        (OpenStackError.timeout("waiting"), .failed),
    ])
    func failures(error: OpenStackError, kind: ProviderError.Kind) {
        let mapped = ProviderFailure.wrap(error, "create")
        #expect(mapped.kind == kind)
        #expect(mapped.message.hasPrefix("create: "))
    }
}
