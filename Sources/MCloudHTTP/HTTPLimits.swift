import Foundation

/// The limits of every request mcloud sends, from the environment, so that a pipeline can shorten them (a chaos
/// test, a partition it would rather see fail fast) or lengthen them (a slow link), as `TF_*` settings do for
/// Terraform. Every variable holds a number; unset means the default:
///
/// | variable | default | what |
/// | --- | --- | --- |
/// | `MCLOUD_HTTP_TIMEOUT` | 120 | seconds one request may take, all its retries and the waits between them included |
/// | `MCLOUD_HTTP_CONNECT_TIMEOUT` | 10 | seconds to open a connection |
/// | `MCLOUD_HTTP_STALL_TIMEOUT` | 30 | seconds an answer may go without a byte before the attempt is given up |
/// | `MCLOUD_HTTP_MAX_RESPONSE_MB` | 256 | MiB an answer's body may hold |
public struct HTTPLimits: Sendable, Hashable {
    public var timeouts: HTTPTimeouts
    public var retry: RetryPolicy

    public static let timeoutVariable = "MCLOUD_HTTP_TIMEOUT"
    public static let connectVariable = "MCLOUD_HTTP_CONNECT_TIMEOUT"
    public static let stallVariable = "MCLOUD_HTTP_STALL_TIMEOUT"
    public static let sizeVariable = "MCLOUD_HTTP_MAX_RESPONSE_MB"

    public init(timeouts: HTTPTimeouts = HTTPTimeouts(), retry: RetryPolicy = RetryPolicy()) {
        self.timeouts = timeouts
        self.retry = retry
        self.retry.deadline = timeouts.total
    }

    /// A setting that is not a number, or is too small to be one, names the variable.
    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public init(environment: [String: String]) throws(Invalid) {
        func value(_ name: String, _ fallback: Double, atLeast minimum: Double) throws(Invalid) -> Double {
            guard let text = environment[name] else { return fallback }
            guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite, number >= minimum else {
                throw Invalid(message: "\(name) must be a number of at least \(Self.format(minimum)), not \"\(text)\"")
            }
            return number
        }
        let defaults = HTTPTimeouts()
        let megabytes = try value(Self.sizeVariable, Double(defaults.maxResponseBytes >> 20), atLeast: 1)
        self.init(timeouts: HTTPTimeouts(
            connect: try value(Self.connectVariable, defaults.connect, atLeast: 0.1),
            total: try value(Self.timeoutVariable, defaults.total, atLeast: 0.1),
            stall: try value(Self.stallVariable, defaults.stall, atLeast: 1).rounded(.up),
            maxResponseBytes: Int(min(megabytes, 1_048_576) * 1_048_576)
        ))
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
