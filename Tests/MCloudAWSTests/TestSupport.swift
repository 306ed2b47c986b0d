import Foundation
import MCloudCore
import MCloudHTTP
import Synchronization
@testable import MCloudAWS

/// Answers requests from a script of responses and records what was sent.
final class ScriptedTransport: HTTPTransport {
    private let state: Mutex<(answers: [HTTPResponse], sent: [HTTPRequest])>

    init(_ answers: [HTTPResponse]) {
        state = Mutex((answers, []))
    }

    var sent: [HTTPRequest] { state.withLock { $0.sent } }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        try state.withLock { (state) throws(HTTPError) -> HTTPResponse in
            state.sent.append(request)
            guard !state.answers.isEmpty else { throw HTTPError.connection(url: request.url, detail: "no scripted answer left") }
            return state.answers.removeFirst()
        }
    }
}

/// Records waits instead of sleeping.
final class RecordingSleeper: Sleeper {
    private let waits = Mutex<[Double]>([])
    var recorded: [Double] { waits.withLock { $0 } }

    func sleep(seconds: Double) async throws(HTTPError) {
        waits.withLock { $0.append(seconds) }
    }
}

extension HTTPResponse {
    static func xml(_ status: Int, _ body: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
    }
}

enum TestConfiguration {
    static let credentials = AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    /// 2015-08-30T12:36:00Z, the suite's time.
    static let date = Date(timeIntervalSince1970: 1_440_938_160)

    static func client(
        _ transport: ScriptedTransport, region: String = "us-east-1", endpoint: String? = nil, sleeper: RecordingSleeper = RecordingSleeper(),
        clock: ManualClock = ManualClock(now: date.timeIntervalSince1970)
    ) -> AWSClient {
        AWSClient(
            configuration: AWSConfiguration(credentials: credentials, region: region, endpointURL: endpoint), transport: transport,
            retryPolicy: RetryPolicy(maxAttempts: 4, baseDelay: 0.1, maxDelay: 1, budget: 10), sleeper: sleeper, clock: clock, jitter: { 1 }
        )
    }
}
