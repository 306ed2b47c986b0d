import Foundation
import MCloudCore
import MCloudProvider
import MCloudViews

/// `mcloud status [CELL...]`: how the application runs now, per cell and cloud, read from every cloud the state names.
struct StatusCommand: Command {
    static let spec = CommandSpec(
        name: "status",
        abstract: "Show how each cell runs in each cloud now: replicas ready, databases, DR legs, CDNs, drift and health.",
        discussion: "Reads the state and, read-only, every cloud it names, all at once and each within --timeout: what the state records there (by lists, as plan's refresh reads it) and each DR leg's backups. For each cell and cloud it shows the Deployment's ready and desired replicas, the database servers' roles, the DR leg's newest backup (flagged as 'mcloud backups' flags it), the CDN's state and what changed outside mcloud since the last apply, with a health in Argo CD's words (Healthy, Progressing, Missing, Degraded, Unknown) rolled up per cell and for the application with the first reason it is not healthy. A cloud that does not answer in time, or that a failover recorded as lost, is Unknown with the reason. docs/status.md describes the JSON and the metrics. Exits 1 when the state or the manifests cannot be read; with --detailed-exitcode, 2 when the application is not Healthy.",
        options: [
            ManifestOptions.file,
            ManifestOptions.providers,
            StateOptions.option,
            CommandSpec.Option(names: ["--json"], valueName: nil, help: "Print the status as JSON (docs/status.md's format) on stdout."),
            CommandSpec.Option(names: ["--detailed-exitcode"], valueName: nil, help: "Exit 0 when Healthy, 2 when not, 1 on error."),
            CommandSpec.Option(names: ["--timeout"], valueName: "SECONDS", help: "Give each cloud SECONDS to answer (default: \(defaultTimeout))."),
            CommandSpec.Option(
                names: ["--watch"], valueName: nil,
                help: "Read again every --interval until Ctrl-C or SIGTERM (exit 0): redrawn in place on a terminal, else printed when it changed."
            ),
            CommandSpec.Option(names: ["--interval"], valueName: "SECONDS", help: "With --watch, wait SECONDS between readings (default: \(defaultInterval))."),
            CommandSpec.Option(
                names: ["--prometheus"], valueName: "FILE",
                help: "Also write the status as Prometheus metrics to FILE, atomically (for node_exporter's textfile collector)."
            ),
            CommandSpec.Option(
                names: ["--listen"], valueName: "HOST:PORT",
                help: "Serve the metrics at http://HOST:PORT/metrics instead, read afresh for each request, until stopped."
            ),
        ],
        positionals: [CommandSpec.Positional(name: "CELL", help: "Only these cells, such as payments-api@ru.", isOptional: true, isRepeatable: true)]
    )

    static let defaultTimeout = 30
    /// Every reading lists each kind in every cloud the state names: 2 s (`watch`'s default, for a cheap local command)
    /// would put several list calls a second on each cloud's API for as long as someone watches, while a rollout's
    /// steps (a pod becoming ready) take several seconds each, so 5 s still shows each of them.
    static let defaultInterval = 5

    var manifests: ManifestOptions
    var state: StateOptions
    var cells: [String]
    var json: Bool
    var detailedExitCode: Bool
    var timeout: Int
    var prometheus: String?
    var listen: (host: String, port: Int)?
    /// Seconds between readings with --watch; nil for one reading.
    var watch: Int?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        state = try StateOptions(arguments)
        cells = arguments.positionals
        json = arguments.flag("--json")
        detailedExitCode = arguments.flag("--detailed-exitcode")
        prometheus = arguments.value("--prometheus")
        timeout = try Self.seconds("--timeout", arguments, default: Self.defaultTimeout)
        if arguments.flag("--watch") {
            let interval = try Self.seconds("--interval", arguments, default: Self.defaultInterval)
            let oneReading = [("--detailed-exitcode", detailedExitCode), ("--prometheus", prometheus != nil), ("--listen", arguments.value("--listen") != nil)]
            if let (option, _) = oneReading.first(where: \.1) {
                throw UsageError(message: "\(option) cannot be used with --watch, which prints each reading until stopped")
            }
            watch = interval
        } else if arguments.value("--interval") != nil {
            throw UsageError(message: "--interval is the wait between --watch's readings; add --watch")
        }
        if let address = arguments.value("--listen") {
            guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]), (0...65535).contains(port) else {
                throw UsageError(message: "--listen needs HOST:PORT, such as 127.0.0.1:9464, not \"\(address)\"")
            }
            if let (option, _) = [("--json", json), ("--detailed-exitcode", detailedExitCode), ("--prometheus", prometheus != nil)].first(where: \.1) {
                throw UsageError(message: "\(option) is for one reading; --listen serves the metrics until stopped")
            }
            listen = (String(address[..<colon]), port)
        }
    }

    /// `option`'s whole seconds, from 1 to an hour.
    static func seconds(_ option: String, _ arguments: ParsedArguments, default value: Int) throws(UsageError) -> Int {
        let text = arguments.value(option) ?? String(value)
        guard let seconds = Int(text), (1...3600).contains(seconds) else {
            throw UsageError(message: "\(option) must be a whole number of seconds from 1 to 3600, not \"\(text)\"")
        }
        return seconds
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let reading = try StatusReader.reading(manifests: manifests, state: state, cells: cells, timeout: timeout, context)
        if let listen {
            let listener: MetricsListener
            do throws(MetricsListener.Failure) {
                listener = try MetricsListener(host: listen.host, port: listen.port)
            } catch {
                throw CommandFailure(error.message)
            }
            context.stderr.write("Serving the metrics at http://\(listen.host):\(listener.port)/metrics; stop with Ctrl-C\n")
            await listener.serve {
                do throws(CommandFailure) {
                    return (200, StatusMetrics.exposition(try await reading()))
                } catch {
                    return (500, error.message + "\n")
                }
            }
            return .success
        }
        if let watch {
            return try await watching(StatusWatch(interval: watch, json: json, context: context), reading, context)
        }
        let document = try await reading()
        context.stdout.write(json ? document.json.serialized() + "\n" : StatusView.render(document))
        if let prometheus {
            let bytes = Data(StatusMetrics.exposition(document).utf8)
            // Readable by node_exporter's user: the metrics name cells and clouds, as the plan does, and hold no secret.
            guard AtomicFile.write(bytes, to: prometheus, what: "the metrics", mode: 0o644, context) else { throw .reported }
        }
        return detailedExitCode && document.verdict.health != .healthy ? .changes : .success
    }

    /// Runs the watch in a task that Ctrl-C and SIGTERM cancel, in the real process; a test cancels it through its clock.
    private func watching(
        _ watch: StatusWatch, _ reading: @escaping @Sendable () async throws(CommandFailure) -> StatusDocument, _ context: CommandContext
    ) async throws(CommandFailure) -> ExitCode {
        let task = Task { () async -> Result<ExitCode, CommandFailure> in
            do throws(CommandFailure) {
                return .success(try await watch.run(reading))
            } catch {
                return .failure(error)
            }
        }
        let signals = context.handlesSignals ? SignalSources(label: "mcloud.status-watch") { _, _ in task.cancel() } : nil
        defer { signals?.cancel() }
        return try await task.value.get()
    }
}
