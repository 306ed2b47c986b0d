import MCloudCore
import MCloudHTTP
import MCloudOpenStack
import Testing

/// Waits on OpenStack, on a clock the test moves: nothing here sleeps.
@Suite struct PollingTests {
    /// A cloud that issues any token and answers every other request with `answer`'s body.
    struct Cloud: HTTPTransport {
        let answer: @Sendable (HTTPRequest) throws(HTTPError) -> String

        func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
            if request.url.hasSuffix("/auth/tokens") {
                return HTTPResponse(
                    status: 201, headers: [("x-subject-token", "token")], body: Array(#"{"token":{"expires_at":"2099-01-01T00:00:00Z","catalog":[]}}"#.utf8)
                )
            }
            return HTTPResponse(status: 200, headers: [], body: Array(try answer(request).utf8))
        }
    }

    static func session(_ answer: @escaping @Sendable (HTTPRequest) throws(HTTPError) -> String) throws -> OpenStackSession {
        let auth = CloudConfig.Auth.password(user: .init(name: "u", domainName: "Default"), password: "p", project: .init(name: "x", domainID: "default"))
        return try OpenStackSession(
            cloud: CloudConfig(name: "lab", authURL: "http://keystone.invalid/v3", auth: auth), transport: Cloud(answer: answer),
            endpointOverrides: ["block-storage": "http://cinder.invalid/v3", "database": "http://trove.invalid/v1.0"]
        )
    }

    @Test func aVolumeThatNeverBecomesAvailableTimesOutOnTheInjectedClock() async throws {
        let clock = ManualClock(now: 1_800_000_000)
        let cinder = CinderClient(session: try Self.session { _ in #"{"volume":{"id":"v1","name":"data","status":"creating"}}"# }, poller: .openStack(timeout: 300, clock: clock))
        await #expect { _ = try await cinder.waitForStatus("v1", "available") } throws: { error in
            (error as? OpenStackError)?.description == "timed out: volume v1 to become available after 300 s"
        }
        #expect(clock.now == 1_800_000_300)
        #expect(clock.sleeps.prefix(4) == [0.5, 0.75, 1.125, 1.6875])
        // Capped at 5 s from the seventh pause on, and the last pause cut to the deadline.
        #expect(Set(clock.sleeps.dropFirst(6).dropLast()) == [5] && clock.sleeps.last ?? 0 <= 5)
    }

    @Test func aCreateLeftUnansweredIsWatchedForItsSettleTimeOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let session = try Self.session { (request) throws(HTTPError) -> String in
            guard request.method == .GET else { throw .connection(url: request.url, detail: "connection reset") }
            return #"{"instances":[]}"#
        }
        let trove = TroveClient(session: session, poller: .openStack(clock: clock))
        let request = DatabaseRequest(name: "db1", flavorID: "f1", volumeGiB: 1, datastore: "postgresql", version: "16")
        await #expect { _ = try await trove.createInstanceOnce(request, settle: 120) } throws: { error in
            "\(error)".contains("no database named db1 appeared within 120 s, so the create is not sent again")
        }
        #expect(clock.now == 120)
        #expect(clock.sleeps.prefix(3) == [0.5, 0.75, 1.125])
    }
}
