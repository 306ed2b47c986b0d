import MCloudCore
import MCloudProvider
import Testing

@Suite struct ResourceBodyTests {
    static let body = ResourceBody(.object([
        ("apiVersion", .string(ResourceBody.infrastructureAPIVersion)), ("kind", .string("Volume")),
        ("metadata", .object([
            ("name", .string("shop.db.0")), ("address", .string("openstack.lab.Volume.shop.db.0")),
            ("labels", .object([(ResourceLabels.partOf, .string("shop")), (ResourceLabels.cell, .string("db"))])),
        ])),
        ("spec", .object([("sizeGiB", .number(20)), ("zone", .string("a"))])),
    ]))

    @Test func aBodyReadsItsIdentityLabelsAndSpec() {
        let body = Self.body
        #expect(body.kind == .volume && body.name == "shop.db.0" && body.address == "openstack.lab.Volume.shop.db.0")
        #expect(body.application == "shop" && body.cell == "db" && body.namespace == nil)
        #expect(body.int("sizeGiB") == 20 && body.double("sizeGiB") == 20 && body.string("zone") == "a" && body.string("missing") == nil)
        #expect(ResourceBody(.object([])).name.isEmpty && ResourceBody(.object([])).cell == nil)
    }

    @Test("setting a value at a path", arguments: [
        (["spec", "zone"], JSONValue?.some(.string("b")), #"{"spec":{"zone":"b"}}"#),
        (["spec", "flavor", "vcpu"], .some(.int(2)), #"{"spec":{"zone":"a","flavor":{"vcpu":2}}}"#),
        (["spec", "zone"], nil, #"{"spec":{}}"#),
        (["spec", "zone", "deeper"], .some(.int(1)), #"{"spec":{"zone":{"deeper":1}}}"#),
        (["status"], .some(.string("new")), #"{"spec":{"zone":"a"},"status":"new"}"#),
    ] as [([String], JSONValue?, String)])
    func setting(_ path: [String], _ value: JSONValue?, _ expected: String) {
        let node: JSONValue = .object([("spec", .object([("zone", .string("a"))]))])
        #expect(ResourceBody.setting(path, to: value, in: node).serialized(pretty: false) == expected)
    }

    @Test func settingSpecLeavesTheRestOfTheBody() {
        let changed = Self.body.settingSpec(["sizeGiB"], .int(40))
        #expect(changed.int("sizeGiB") == 40 && changed.name == Self.body.name && changed.string("zone") == "a")
    }

    @Test func bodiesTheEngineComparesEqualHaveTheSameCanonicalText() {
        let one = ResourceBody(.object([("b", .number(1.0)), ("a", .array([.object([("y", .int(2)), ("x", .string("s"))])]))]))
        let same = ResourceBody(.object([("a", .array([.object([("x", .string("s")), ("y", .number(2))])])), ("b", .int(1))]))
        let other = ResourceBody(.object([("a", .array([])), ("b", .int(1))]))
        #expect(one.canonicalText == same.canonicalText)
        #expect(one.canonicalText != other.canonicalText)
        #expect(FieldDiff.same(one.document, same.document))
    }

    @Test func theSmallestInfrastructureDocumentNamesWhatItCan() {
        let bare = ResourceBody.infrastructure(kind: .backupSchedule, address: "aws.a.BackupSchedule.x")
        #expect(bare.document.serialized(pretty: false)
            == #"{"apiVersion":"infrastructure.mcloud.io/v1","kind":"BackupSchedule","metadata":{"address":"aws.a.BackupSchedule.x"}}"#)
        let found = ResourceBody.infrastructure(kind: .volume, address: "openstack.lab.Volume.x", name: "x", cloud: "lab", spec: .object([]))
        #expect(found.document.serialized(pretty: false)
            == #"{"apiVersion":"infrastructure.mcloud.io/v1","kind":"Volume","metadata":{"name":"x","address":"openstack.lab.Volume.x","cloud":"lab","provider":"openstack"},"spec":{}}"#)
    }

    @Test func everyRenderedBodyIsSelectedByItsApplication() {
        #expect(ResourceLabels.selector(application: "shop") == "app.kubernetes.io/managed-by=mcloud,app.kubernetes.io/part-of=shop")
    }
    /// One ready endpoint per IPv4 address, as the API server accepts them; anything else is left out.
    @Test func aSliceHoldsOneReadyEndpointPerIPv4Address() throws {
        let slice = ResourceBody(.object([
            ("kind", .string("EndpointSlice")),
            ("metadata", .object([("annotations", .object([(ResourceBody.endpointSourcesAnnotation, .string("a.lab.DatabaseServer.x,k.lab.Ingress.y"))]))])),
            ("endpoints", .array([])),
        ]))
        #expect(slice.endpointSources == ["a.lab.DatabaseServer.x", "k.lab.Ingress.y"])
        let filled = slice.settingTargetAddresses(["10.0.0.5", "fd00::5", "db.example.net", "010.0.0.1", "256.1.1.1", "10.0.0", "192.0.2.1"])
        #expect(filled.targetAddresses == ["10.0.0.5", "192.0.2.1"])
        #expect(filled.document["endpoints"]?.serialized(pretty: false) == #"[{"addresses":["10.0.0.5"],"conditions":{"ready":true}},{"addresses":["192.0.2.1"],"conditions":{"ready":true}}]"#)
        #expect(filled.settingTargetAddresses([]).document["endpoints"] == .array([]))
        // Only a slice or a policy names sources.
        #expect(Self.body.endpointSources.isEmpty)
    }

    /// A policy's egress goes to exactly the addresses, each a /32 block, on the ports rendered; with none it stays
    /// open to any address, as rendered.
    @Test func anEgressPolicyGoesToExactlyTheAddresses() {
        let policy = ResourceBody(.object([
            ("kind", .string("NetworkPolicy")),
            ("metadata", .object([("annotations", .object([(ResourceBody.endpointSourcesAnnotation, .string("a.lab.DatabaseServer.x"))]))])),
            ("spec", .object([("egress", .array([.object([("ports", .array([.object([("protocol", .string("TCP")), ("port", .int(5432))])]))])]))])),
        ]))
        #expect(policy.endpointSources == ["a.lab.DatabaseServer.x"])
        let narrowed = policy.settingTargetAddresses(["10.0.0.5", "fd00::5"])
        #expect(narrowed.document.value(at: ["spec", "egress"])?.serialized(pretty: false) == #"[{"ports":[{"protocol":"TCP","port":5432}],"to":[{"ipBlock":{"cidr":"10.0.0.5/32"}}]}]"#)
        #expect(narrowed.targetAddresses == ["10.0.0.5"])
        #expect(narrowed.settingTargetAddresses([]).document == policy.document)
    }

    @Test func reportedAddressesAreReadBackAndNoneRemovesThem() {
        let reported = Self.body.reportingAddresses(["10.0.0.5", "fd00::5"])
        #expect(reported.reportedAddresses == ["10.0.0.5", "fd00::5"])
        #expect(reported.reportingAddresses([]).document.value(at: ["status"])?.objectPairs.isEmpty == true)
        #expect(Self.body.reportedAddresses.isEmpty)
    }
}
