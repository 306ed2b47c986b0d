#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MCloudCDNProvider
import MCloudCore
import MCloudHTTP
import MCloudProvider
import MCloudTestSupport
import Testing

/// A catalog comes through merge requests: its `endpoints.cdn` must not choose which of the operator's variables is
/// sent, nor send one in clear text. Each refusal comes on first use, before any request; a loopback listener shows
/// that nothing was sent. An accepted case has its variable unset, so it stops at "not set", also before any request.
@Suite struct CDNTokenAllowanceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var behaviour: String
        var tokenEnv: String
        /// `LISTENER` stands for the loopback listener's `http://127.0.0.1:<port>`.
        var url: String
        var allowed: String?
        /// A part of the refusal, or nil when the token may be sent.
        var refusal: String?
        var testDescription: String { behaviour }
    }

    @Test(arguments: [
        Case(
            behaviour: "AWS keys are never a CDN token, even when listed", tokenEnv: "AWS_SECRET_ACCESS_KEY", url: "LISTENER/cdn",
            allowed: "AWS_SECRET_ACCESS_KEY", refusal: "names AWS_SECRET_ACCESS_KEY, which holds no CDN token"
        ),
        Case(behaviour: "OpenStack's password neither", tokenEnv: "OS_PASSWORD", url: "LISTENER/cdn", allowed: "OS_PASSWORD", refusal: "never sends AWS_*, OS_*"),
        Case(behaviour: "nor the shell's PATH", tokenEnv: "PATH", url: "LISTENER/cdn", allowed: "PATH", refusal: "holds no CDN token"),
        Case(
            behaviour: "a variable the operator did not list is refused", tokenEnv: "GCORE_API_TOKEN", url: "LISTENER/cdn",
            refusal: "names GCORE_API_TOKEN, which is not listed in MCLOUD_ALLOWED_TOKEN_ENV"
        ),
        Case(
            behaviour: "a token pinned to its API's host is not sent elsewhere", tokenEnv: "GCORE_API_TOKEN", url: "LISTENER/cdn",
            allowed: "VK_CDN_TOKEN, GCORE_API_TOKEN@api.gcore.com", refusal: "is not on api.gcore.com, the host MCLOUD_ALLOWED_TOKEN_ENV allows GCORE_API_TOKEN to be sent to"
        ),
        Case(
            behaviour: "plain http to another host is refused", tokenEnv: "GCORE_API_TOKEN", url: "http://cdn.example/api",
            allowed: "GCORE_API_TOKEN", refusal: "would send GCORE_API_TOKEN in clear text: use https://"
        ),
        Case(behaviour: "a listed variable over https is sent", tokenEnv: "GCORE_API_TOKEN", url: "https://api.gcore.com/cdn", allowed: "GCORE_API_TOKEN@api.gcore.com"),
        Case(behaviour: "a listed variable to a loopback test bed over http is sent", tokenEnv: "LAB_CDN_TOKEN", url: "http://localhost:9/cdn", allowed: "LAB_CDN_TOKEN"),
    ])
    func aCatalogChoosesNeitherTheTokenNorWhereItGoesInClearText(_ test: Case) async throws {
        let listener = try LoopbackListener()
        let cloud = Cloud(
            name: "lab", vendor: "gcore", api: .openstack, jurisdiction: ["EU"], region: "r", zones: [], offers: .init(),
            capacity: .init(vcpu: 1, memoryGiB: 1, storageGiB: 1), pricing: .init(currency: "EUR", vcpuHour: 0, memoryGiBHour: 0), latencyMs: [:],
            endpoints: .init(cdnURL: test.url.replacingOccurrences(of: "LISTENER", with: listener.url), cdnTokenEnv: test.tokenEnv),
            location: SourceLocation(file: "providers/lab.yaml", line: 3, column: 1)
        )
        var environment: [String: String] = [:]
        environment["MCLOUD_ALLOWED_TOKEN_ENV"] = test.allowed
        if test.refusal != nil { environment[test.tokenEnv] = "operator-secret" }
        // Short limits: before the fix the request went out, and the listener never answers.
        let limits = HTTPLimits(timeouts: HTTPTimeouts(connect: 1, total: 1, stall: 1))
        let provider = try CDNProviderCatalog(environment: environment, limits: limits).provider(named: "cdn", for: cloud)
        let expected = test.refusal ?? "the CDN token variable \(test.tokenEnv) (endpoints.cdn.tokenEnv) is not set"
        await #expect {
            _ = try await provider.refresh(application: "shop", desired: [], recorded: [])
        } throws: { error in
            let message = (error as? ProviderError)?.message ?? "\(error)"
            return message.hasPrefix("cloud lab") && message.contains(expected) && (test.refusal == nil || message.hasPrefix("cloud lab (providers/lab.yaml:3:1): "))
        }
        #expect(!listener.connected, "a request reached the listener")
    }
}

/// A TCP socket listening on 127.0.0.1 that never accepts: a connection waits in its backlog, which `poll` sees.
final class LoopbackListener {
    private let socket: Int32
    let url: String

    init() throws {
        guard let bound = loopbackSocket() else { throw Failure() }
        socket = bound.descriptor
        url = "http://127.0.0.1:\(bound.port)"
        guard listen(bound.descriptor, 8) == 0 else { throw Failure() }
    }

    /// Whether a connection has arrived.
    var connected: Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }

    deinit { close(socket) }

    struct Failure: Error {}
}
