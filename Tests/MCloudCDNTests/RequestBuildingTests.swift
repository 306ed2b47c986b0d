import MCloudAWS
import MCloudCDN
import MCloudCDNProvider
import MCloudCore
import MCloudHTTP
import Testing

@Suite struct RequestBuildingTests {
    @Test("cache path globs become anchored regular expressions with everything but * literal", arguments: [
        ("/static/*", "^/static/.*$"),
        ("/a.b/*.js", "^/a\\.b/.*\\.js$"),
        ("/exact", "^/exact$"),
    ])
    func globs(glob: String, expression: String) {
        #expect(GCoreCDN.regularExpression(glob: glob) == expression)
    }

    @Test("an Ingress address gives a host and the host gives the address back")
    func originHosts() throws {
        let address = "kubernetes.sel-msk.networking.k8s.io/v1.Ingress.retail-bank-ru.web"
        let host = try #require(OriginHost.host(ingress: address))
        #expect(host == "web.retail-bank-ru.sel-msk.origins.mcloud.internal")
        let back = try #require(OriginHost.ingress(host: host))
        #expect(back.address == address && back.cloud == "sel-msk")
    }

    @Test("addresses that are not rendered Ingresses give no host", arguments: [
        "kubernetes.lab.v1.Service.shop.web", "openstack.lab.Volume.x", "kubernetes.lab.networking.k8s.io/v1.Ingress.only-name",
    ])
    func notIngresses(address: String) {
        #expect(OriginHost.host(ingress: address) == nil)
    }

    @Test("the credential goes in the header its API expects", arguments: [
        (GCoreCDN.Credential.apiKey("k1"), "Authorization", "APIKey k1"),
        (GCoreCDN.Credential.keystoneToken("t1"), "X-Auth-Token", "t1"),
    ])
    func credentials(credential: GCoreCDN.Credential, header: String, value: String) {
        let request = GCoreCDN(baseURL: "https://api.example/cdn/", credential: credential).request(.POST, "/resources", body: .object([("cname", .string("a"))]))
        #expect(request.url == "https://api.example/cdn/resources")
        #expect(request.header(header) == value)
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.retryable == false)
    }

    @Test("resource, origin group and rule bodies carry what the G-Core API documents")
    func bodies() throws {
        let spec = sampleSpec()
        let resource = GCoreCDN.resourceBody(spec, originGroup: 7)
        #expect(resource["originGroup"] == .int(7))
        #expect(resource["cname"]?.stringValue == "shop-images.lab.cdn.mcloud.internal")
        #expect(resource["description"]?.stringValue == "mcloud shop 0123456789abcdef cdn.lab.CDNResource.shop.images")
        let group = GCoreCDN.originGroupBody(spec)
        #expect(group.value(at: ["sources"])?.arrayItems.first?["source"]?.stringValue == "web.shop-eu.lab.origins.mcloud.internal")
        let rule = GCoreCDN.ruleBody(spec.cacheRules[0], weight: 1)
        #expect(rule.value(at: ["options", "edge_cache_settings", "value"]) == .string("86400s"))
        #expect(rule["rule"]?.stringValue == "^/static/.*$")
    }

    @Test("error bodies become errors of the right kind that quote the CDN", arguments: [
        (400, #"{"errors": {"cname": ["CDN resource with this cname already exists."]}}"#, CDNError.Kind.failed, "cname: CDN resource with this cname already exists."),
        (401, #"{"detail": "Invalid token."}"#, .unauthorized, "Invalid token."),
        (429, #"{"detail": "Request was throttled. Expected available in 3 seconds."}"#, .capacity, "Request was throttled"),
        (412, #"{"detail": "Precondition failed"}"#, .conflict, "Precondition failed"),
        (400, #"{"errors": {"non_field_errors": ["CDN resources limit exceeded"]}}"#, .capacity, "limit exceeded"),
        (502, "<html>bad gateway</html>", .failed, "bad gateway"),
    ])
    func errors(status: Int, body: String, kind: CDNError.Kind, message: String) {
        let error = GCoreCDN.error(HTTPResponse(status: status, body: Array(body.utf8)), operation: "G-Core CDN create resource x")
        #expect(error.kind == kind)
        #expect(error.description.contains(message), "\(error)")
        #expect(error.description.hasPrefix("G-Core CDN create resource x: HTTP \(status)"))
    }

    @Test("a marker reads back, and text mcloud did not write is no marker")
    func markers() {
        let marker = CDNMarker(application: "shop", digest: "abc", address: "cdn.lab.CDNResource.shop.images")
        #expect(CDNMarker(marker.description) == marker)
        #expect(CDNMarker("made by hand") == nil)
    }

    @Test("the body digest ignores key order and 1 versus 1.0, and sees a changed value")
    func digests() {
        let one = JSONValue.object([("a", .int(1)), ("b", .string("x"))])
        let same = JSONValue.object([("b", .string("x")), ("a", .number(1.0))])
        let other = JSONValue.object([("a", .int(2)), ("b", .string("x"))])
        #expect(CDNResourceBody.digest(one) == CDNResourceBody.digest(same))
        #expect(CDNResourceBody.digest(one) != CDNResourceBody.digest(other))
    }

    @Test("a CloudFront configuration has an origin per host and a cache behaviour per rule")
    func cloudFrontConfig() throws {
        let spec = sampleSpec(origins: ["a.lab.origins.mcloud.internal", "b.lab.origins.mcloud.internal"])
        let xml = CloudFrontCDN.configXML(spec, callerReference: "ref-1")
        let root = try XMLNode.parse(Array(xml.utf8))
        #expect(root.value("Origins", "Quantity") == "2")
        #expect(root.value("CacheBehaviors", "Quantity") == "2")
        #expect(root.value("Comment") == spec.marker.description)
        let read = try #require(CloudFrontCDN.deployment(XMLNode(name: "Distribution", children: [XMLNode(name: "Id", text: "E1"), XMLNode(name: "Status", text: "Deployed"), root])))
        #expect(read.origins == spec.origins)
        #expect(read.cacheRules == spec.cacheRules)
        #expect(read.marker == spec.marker)
    }
}
