public import MCloudCore
public import MCloudProvider
import Synchronization

/// Somewhere text goes: the terminal, or a buffer in tests.
public protocol TextOutput: Sendable {
    func write(_ text: String)
}

/// A stream that keeps what is written, for tests and for callers that post-process output.
public final class BufferedOutput: TextOutput {
    private let storage = Mutex("")

    public init() {}

    public func write(_ text: String) {
        storage.withLock { $0 += text }
    }

    public var text: String { storage.withLock { $0 } }
}

/// Everything a command may touch of the outside world, passed in so tests run commands in-process.
public struct CommandContext: Sendable {
    public var stdout: any TextOutput
    public var stderr: any TextOutput
    public var environment: [String: String]
    /// Whether stdout is a terminal: colour is used only then, and never with `NO_COLOR` set.
    public var isTerminal: Bool
    /// A line of standard input, nil at its end: apply's confirmation.
    public var readLine: @Sendable () -> String?
    /// Whether a command may take over Ctrl-C (only the real process; tests run commands in-process).
    public var handlesSignals: Bool
    /// What every wait and every age reads: the machine's clock, or a test's.
    public var clock: any WallClock
    /// The providers commands reach clouds through; nil: the built-in ones, configured from `environment`.
    public var providers: (any ProviderCatalog)?

    public init(
        stdout: any TextOutput, stderr: any TextOutput, environment: [String: String], isTerminal: Bool = false,
        readLine: @escaping @Sendable () -> String? = { nil }, handlesSignals: Bool = false, clock: any WallClock = SystemClock(),
        providers: (any ProviderCatalog)? = nil
    ) {
        self.stdout = stdout
        self.stderr = stderr
        self.environment = environment
        self.isTerminal = isTerminal
        self.readLine = readLine
        self.handlesSignals = handlesSignals
        self.clock = clock
        self.providers = providers
    }

    /// Colour on a terminal unless `NO_COLOR` is set (https://no-color.org), whatever its value.
    public var usesColor: Bool { isTerminal && environment["NO_COLOR"] == nil }
}

/// Exit codes as docs/cli.md defines them.
public enum ExitCode: Int32, Sendable {
    case success = 0
    case failure = 1
    /// Only with `plan --detailed-exitcode`: the plan has changes; and `render --check`: the directory differs.
    case changes = 2
}

extension CommandContext {
    /// The providers to reach clouds through: the test's, else the built-in ones.
    var providerCatalog: any ProviderCatalog { providers ?? ProviderRegistry(environment: environment) }
}
