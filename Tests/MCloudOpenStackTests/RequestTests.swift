import Foundation
import MCloudCore
import MCloudHTTP
@testable import MCloudOpenStack
import Testing

@Suite("request building and decoding")
struct RequestTests {
    @Test("password auth scopes to the project by name and domain")
    func passwordBody() {
        let body = OpenStackSession.authBody(.password(user: .init(name: "u", domainName: "Default"), password: "p", project: .init(name: "x", domainID: "default")))
        #expect(body.serialized(pretty: false) == #"{"auth":{"identity":{"methods":["password"],"password":{"user":{"name":"u","domain":{"name":"Default"},"password":"p"}}},"scope":{"project":{"name":"x","domain":{"id":"default"}}}}}"#)
    }

    @Test("an application credential by name names its user")
    func applicationCredentialBody() {
        let body = OpenStackSession.authBody(.applicationCredential(id: nil, name: "ci", secret: "s", user: .init(id: "u1")))
        #expect(body.serialized(pretty: false) == #"{"auth":{"identity":{"methods":["application_credential"],"application_credential":{"name":"ci","user":{"id":"u1"},"secret":"s"}}}}"#)
    }

    static let catalog = ServiceCatalog.decode(try! JSONParser.parse("""
    [{"type":"compute","endpoints":[{"interface":"public","region_id":"One","url":"http://one/v2.1/"},{"interface":"internal","region_id":"Two","url":"http://two-int/v2.1"}]},
     {"type":"volumev3","endpoints":[{"interface":"public","region_id":"One","url":"http://vol/v3"}]}]
    """))

    @Test("the catalog picks the endpoint by type, interface and region", arguments: [
        ("compute", "public", "One", "http://one/v2.1"),
        ("compute", "internal", "Two", "http://two-int/v2.1"),
        ("compute", "public", nil, "http://one/v2.1"),
        ("block-storage", "public", "One", "http://vol/v3"),
    ] as [(String, String, String?, String)])
    func catalogLookup(type: String, interface: String, region: String?, url: String) throws {
        #expect(try Self.catalog.url(type: type, interface: interface, region: region) == url)
    }

    @Test("a missing endpoint says what the catalog has")
    func catalogMiss() {
        #expect { try Self.catalog.url(type: "compute", interface: "admin", region: "One") } throws: { error in
            "\(error)".contains("no compute endpoint for interface admin in region One (the catalog has internal@Two, public@One)")
        }
        #expect { try Self.catalog.url(type: "database", interface: "public", region: nil) } throws: { error in
            "\(error)".contains("offers no database service (its catalog has compute, volumev3)")
        }
    }

    @Test("token expiry is read with and without fractions")
    func expiry() {
        #expect(Token.parseTime("2026-11-30T04:41:44.000000Z") == Date(timeIntervalSince1970: 1_796_013_704))
        #expect(Token.parseTime("2026-11-30T04:41:44Z") == Date(timeIntervalSince1970: 1_796_013_704))
    }

    @Test("microversions compare numerically and the range comes from the version document")
    func microversions() throws {
        #expect(Microversion("2.9")! < Microversion("2.37")!)
        let document = try JSONParser.parse(#"{"versions":[{"id":"v2.0","status":"SUPPORTED","version":"","min_version":""},{"id":"v2.1","status":"CURRENT","version":"2.93","min_version":"2.1"}]}"#)
        #expect(Microversion.range(in: document) == Microversion(2, 1)...Microversion(2, 93))
        #expect(NovaClient.versionHeaders(Microversion(2, 52)).map(\.value) == ["compute 2.52", "2.52"])
    }

    static let flavors = [
        Flavor(id: "1", name: "tiny", vcpus: 1, ramMiB: 512, diskGiB: 1), Flavor(id: "2", name: "small", vcpus: 2, ramMiB: 2048, diskGiB: 10),
        Flavor(id: "3", name: "small-disk", vcpus: 2, ramMiB: 2048, diskGiB: 40), Flavor(id: "4", name: "big", vcpus: 8, ramMiB: 32768, diskGiB: 80),
        Flavor(id: "5", name: "off", vcpus: 2, ramMiB: 4096, diskGiB: 1, disabled: true),
    ]

    @Test("the smallest flavor with enough vCPU and RAM wins", arguments: [(1, 256, "tiny"), (2, 1024, "small"), (2, 3000, "big"), (8, 32768, "big")])
    func flavorChoice(vcpus: Int, ram: Int, expected: String) throws {
        #expect(try Flavor.smallest(fitting: vcpus, ramMiB: ram, in: Self.flavors).name == expected)
    }

    @Test("no fitting flavor names the largest one")
    func noFlavor() {
        #expect { try Flavor.smallest(fitting: 16, ramMiB: 1024, in: Self.flavors) } throws: { error in
            "\(error)" == "flavors: no flavor has 16 vCPU and 1024 MiB RAM; the largest is big with 8 vCPU and 32768 MiB"
        }
    }

    @Test("a server body carries base64 user data, ownership tags and metadata, and the request tag")
    func serverBody() {
        let request = ServerRequest(
            name: "web-0", imageID: "img", flavorID: "fl", userData: Array("#cloud-config\n".utf8), marks: .owned(application: "shop", cell: "eu/1"),
            securityGroups: ["web"], networks: .none
        )
        #expect(request.body(requestTag: "request:1").serialized(pretty: false) == #"{"server":{"name":"web-0","imageRef":"img","flavorRef":"fl","networks":"none","user_data":"I2Nsb3VkLWNvbmZpZwo=","security_groups":[{"name":"web"}],"metadata":{"managed-by":"mcloud","application":"shop","cell":"eu/1","request":"request:1"},"tags":["managed-by:mcloud","application:shop","cell:eu_1","request:1"]}}"#)
    }

    /// A database VM's volume goes to the catalog's encrypted type where the cloud names one (docs/security.md, M6),
    /// else to the cloud's default, which the body then leaves unnamed.
    @Test("a volume body names the encrypted volume type only when the catalog gives one", arguments: [
        ("luks-ssd" as String?, #"{"volume":{"name":"db-0","size":20,"metadata":{"managed-by":"mcloud","application":"shop","cell":"db"},"availability_zone":"nova","volume_type":"luks-ssd"}}"#),
        (nil, #"{"volume":{"name":"db-0","size":20,"metadata":{"managed-by":"mcloud","application":"shop","cell":"db"},"availability_zone":"nova"}}"#),
    ])
    func volumeBody(type: String?, expected: String) {
        let body = CinderClient.createBody(name: "db-0", sizeGiB: 20, marks: .owned(application: "shop", cell: "db"), availabilityZone: "nova", volumeType: type)
        #expect(body.serialized(pretty: false) == expected)
    }

    @Test("a volume's type is read back")
    func volumeTypeReadBack() throws {
        let answer = try JSONParser.parse(#"{"id":"v1","name":"db-0","size":20,"status":"available","volume_type":"luks-ssd","metadata":{}}"#)
        #expect(Volume.decode(answer)?.volumeType == "luks-ssd")
    }

    /// Networks are read in name order; a floating address, which reaches the server from outside its cloud, first.
    @Test("a server's addresses are read back, floating ones first")
    func serverAddressesReadBack() throws {
        let answer = try JSONParser.parse(#"""
            {"id":"s1","name":"db-0","status":"ACTIVE","addresses":{
              "public":[{"addr":"203.0.113.7","version":4,"OS-EXT-IPS:type":"fixed"}],
              "private":[{"addr":"10.0.0.5","version":4,"OS-EXT-IPS:type":"fixed"},{"addr":"198.51.100.9","version":4,"OS-EXT-IPS:type":"floating"},
                         {"addr":"fd00::5","version":6}]}}
            """#)
        #expect(Server.decode(answer)?.addresses == ["198.51.100.9", "10.0.0.5", "fd00::5", "203.0.113.7"])
        #expect(Server.decode(try JSONParser.parse(#"{"id":"s2"}"#))?.addresses == [])
    }

    @Test("a create is retried only when its server may exist", arguments: [
        (OpenStackError.transport(operation: "x", .connection(url: "u", detail: "reset")), true),
        (.api(APIFault(operation: "x", status: 503, kind: nil, message: "", requestID: nil)), true),
        (.api(APIFault(operation: "x", status: 400, kind: nil, message: "", requestID: nil)), false),
        (.capacity(APIFault(operation: "x", status: 403, kind: nil, message: "", requestID: nil)), false),
    ])
    func retryable(error: OpenStackError, expected: Bool) {
        #expect(NovaClient.mayHaveCreated(error) == expected)
    }

    /// Trove names an instance's addresses in `addresses` with their type (Victoria and later) or in `ip`; the
    /// public ones come first, as another cloud reaches the instance there.
    @Test("a Trove instance's addresses are read public first, from either field", arguments: [
        (#""addresses":[{"address":"10.1.0.5","type":"private"},{"address":"172.24.4.9","type":"public"}],"ip":["10.1.0.5"]"#, ["172.24.4.9", "10.1.0.5"]),
        (#""ip":["10.1.0.6","172.24.4.10"]"#, ["10.1.0.6", "172.24.4.10"]),
        (#""hostname":"db.example""#, []),
    ])
    func troveAddresses(fields: String, expected: [String]) throws {
        let instance = try #require(DatabaseInstance.decode(try JSONParser.parse(#"{"id":"i0","status":"ACTIVE",\#(fields)}"#)))
        #expect(instance.addresses == expected)
        #expect(instance.hostname == (fields.contains("hostname") ? "db.example" : nil))
    }

    /// Trove's answers as the bed gives them: 20 instances whatever the limit, and a `next` link while more follow;
    /// Nova, Cinder and Neutron link the next page the same way under their own keys.
    @Test("a list goes on while its answer has a next link, however few items a page holds", arguments: [
        (20, #"[{"rel":"next","href":"https://127.0.0.1:8779/v1.0/p/instances/detail?limit=100&marker=i19"}]"#, "i19"),
        (3, #"[{"rel":"next","href":"https://h/instances/detail?marker=i2"}]"#, "i2"),
        (20, "[]", nil),
        (100, "[]", nil),
        (0, #"[{"rel":"next","href":"https://h/instances/detail"}]"#, nil),
    ] as [(Int, String, String?)])
    func troveNextPage(items count: Int, links: String, marker: String?) throws {
        let items = (0..<count).map { #"{"id":"i\#($0)","name":"n\#($0)","status":"ACTIVE"}"# }.joined(separator: ",")
        let answer = try JSONParser.parse(#"{"instances":[\#(items)],"links":\#(links)}"#)
        let decoded = answer["instances"]?.arrayItems.compactMap(DatabaseInstance.decode) ?? []
        var pages = PageTokens(operation: "list databases")
        #expect(try PageLinks.nextMarker(answer, links: "links", lastID: decoded.last?.id, pages: &pages) == marker)
        for key in ["servers_links", "volumes_links", "security_groups_links"] {
            let renamed = try JSONParser.parse(#"{"items":[\#(items)],"\#(key)":\#(links)}"#)
            var fresh = PageTokens(operation: "list \(key)")
            #expect(try PageLinks.nextMarker(renamed, links: key, lastID: decoded.last?.id, pages: &fresh) == marker, "\(key)")
        }
    }

    /// Trove sorts instances by a field many share, so one created or deleted between two requests shifts the rest:
    /// the bed's chaos run met an instance on two pages. Before, the listing returned it twice, and a count of
    /// what exists (or a delete by the list) saw two.
    @Test("an item a shifting server lists on two pages is collected once, in the order first seen", arguments: [
        "links", "servers_links", "volumes_links", "security_groups_links",
    ])
    func anItemOnTwoPagesIsCollectedOnce(links key: String) async throws {
        let pages: [String?: (ids: [String], more: Bool)] = [
            nil: (["i0", "i1", "i2"], true),
            "i2": (["i2", "i1", "i3"], true),
            "i3": (["i4"], false),
        ]
        let more = try JSONParser.parse(#"{"\#(key)":[{"rel":"next","href":"https://h/x?marker=m"}]}"#)
        let last = try JSONParser.parse(#"{"\#(key)":[]}"#)
        var asked: [String?] = []
        let collected = try await PageLinks.collect("list \(key)", links: key, id: \.self) { marker throws(OpenStackError) in
            asked.append(marker)
            let page = pages[marker] ?? ([], false)
            return (page.more ? more : last, page.ids)
        }
        #expect(collected == ["i0", "i1", "i2", "i3", "i4"])
        #expect(asked == [nil, "i2", "i3"])
    }

    /// A server that links the page it was just asked for again would be followed forever; before, the listing
    /// ended quietly with what it had, which made the missing rest look deleted. It is an error naming the listing.
    @Test func aNextLinkToTheSamePageAgainIsAnErrorNamingTheListing() throws {
        let answer = try JSONParser.parse(#"{"instances":[{"id":"i1","name":"n","status":"ACTIVE"}],"links":[{"rel":"next","href":"https://h/x?marker=i1"}]}"#)
        var pages = PageTokens(operation: "list databases")
        #expect(try PageLinks.nextMarker(answer, links: "links", lastID: "i1", pages: &pages) == "i1")
        #expect {
            try PageLinks.nextMarker(answer, links: "links", lastID: "i1", pages: &pages)
        } throws: { error in
            "\(error)".contains("list databases") && "\(error)".contains("a second time")
        }
    }
}
