import Foundation
import MCloudCDN
import MCloudCore
import MCloudHTTP
import MCloudTestSupport
import Testing

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// A python script of scripts/testbed/ on a free loopback port, killed when the test lets go of it.
func testBedScript(_ script: String, _ arguments: [String]) throws -> ScriptProcess {
    try ScriptProcess("\(repositoryRoot)/scripts/testbed/\(script)", arguments)
}

/// The G-Core-style CDN test server, optionally behind the fault proxy, and a client for it.
struct CDNTestBed {
    static let token = "cdn-test-token"
    let server: ScriptProcess
    let proxy: ScriptProcess?

    init(proxied: Bool = false, arguments: [String] = []) throws {
        server = try testBedScript("cdn_server.py", ["--token", Self.token, "--deploy-reads", "2", "--purge-window", "2"] + arguments)
        proxy = proxied ? try testBedScript("fault_proxy.py", ["--upstream", server.url]) : nil
    }

    /// What a client talks to: the proxy when there is one.
    var apiURL: String { (proxy ?? server).url + "/cdn" }

    /// The server moves on by reads and a 2-second window, so a wait ends in seconds; its bound is the beds' own,
    /// since under the suite's load a test may not get a thread for minutes (10 s failed that way).
    func service(token: String = CDNTestBed.token, transport: RetryingTransport = CDNTestBed.transport) -> GCoreCDN {
        GCoreCDN(baseURL: apiURL, credential: .apiKey(token), transport: transport, pollInterval: 0.02, timeout: BedTiming.requestDeadline)
    }

    /// VK's dialect: a project in the path, `originGroups`, a Keystone token.
    func vkService(project: String) -> GCoreCDN {
        GCoreCDN(
            baseURL: (proxy ?? server).url + "/api/cdn/api/v1/projects/\(project)", credential: .keystoneToken(Self.token), originGroupsPath: "/originGroups",
            transport: Self.transport, pollInterval: 0.02, timeout: BedTiming.requestDeadline
        )
    }

    static let transport = RetryingTransport(CurlTransport(), policy: RetryPolicy(maxAttempts: 5, baseDelay: 0.01, maxDelay: 5, budget: 10, deadline: BedTiming.requestDeadline))

    func control(_ name: String, _ body: JSONValue? = nil) async throws -> JSONValue {
        let request = HTTPRequest(method: body == nil ? .GET : .POST, url: "\(server.url)/__control/\(name)", body: body.map { Array($0.serialized().utf8) })
        let response = try await CurlTransport().send(request)
        return response.body.isEmpty ? .null : try JSONParser.parse(response.body)
    }

    /// Adds fault proxy rules.
    func faults(_ rules: JSONValue) async throws {
        let proxy = try #require(proxy)
        _ = try await CurlTransport().send(HTTPRequest(method: .POST, url: "\(proxy.url)/__fault", body: Array(rules.serialized().utf8)))
    }

    func state() async throws -> JSONValue { try await control("state") }

    /// The server's journal lines that are exactly `line` ("POST /cdn/resources").
    func journal(_ line: String) async throws -> [String] {
        try await state()["journal"]?.arrayItems.compactMap(\.stringValue).filter { $0 == line } ?? []
    }
}

func sampleSpec(_ name: String = "shop.images", origins: [String] = ["web.shop-eu.lab.origins.mcloud.internal"]) -> CDNResourceSpec {
    CDNResourceSpec(
        name: name, cname: "\(name.replacingOccurrences(of: ".", with: "-")).lab.cdn.mcloud.internal", origins: origins,
        cacheRules: [CDNCacheRule(path: "/static/*", ttlSeconds: 86400), CDNCacheRule(path: "/img/*", ttlSeconds: 3600)],
        marker: CDNMarker(application: "shop", digest: "0123456789abcdef", address: "cdn.lab.CDNResource.\(name)")
    )
}
