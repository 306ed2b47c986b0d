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

    var manifests: ManifestOptions
    var state: StateOptions
    var cells: [String]
    var json: Bool
    var detailedExitCode: Bool
    var timeout: Int
    var prometheus: String?
    var listen: (host: String, port: Int)?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        state = try StateOptions(arguments)
        cells = arguments.positionals
        json = arguments.flag("--json")
        detailedExitCode = arguments.flag("--detailed-exitcode")
        prometheus = arguments.value("--prometheus")
        let text = arguments.value("--timeout") ?? String(Self.defaultTimeout)
        guard let seconds = Int(text), (1...3600).contains(seconds) else {
            throw UsageError(message: "--timeout must be a whole number of seconds from 1 to 3600, not \"\(text)\"")
        }
        timeout = seconds
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

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let reading = try reader(context)
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
        let document = try await reading()
        context.stdout.write(json ? document.json.serialized() + "\n" : StatusView.render(document))
        if let prometheus {
            let bytes = Data(StatusMetrics.exposition(document).utf8)
            // Readable by node_exporter's user: the metrics name cells and clouds, as the plan does, and hold no secret.
            guard AtomicFile.write(bytes, to: prometheus, what: "the metrics", mode: 0o644, context) else { throw .reported }
        }
        return detailedExitCode && document.verdict.health != .healthy ? .changes : .success
    }

    /// Checks the manifests and the cells once, and returns what reads the state and the clouds into a status: once,
    /// or for each request with --listen, so each scrape sees the state as it is then.
    private func reader(_ context: CommandContext) throws(CommandFailure) -> @Sendable () async throws(CommandFailure) -> StatusDocument {
        let model = try PlacementLoader.model(manifests, context)
        let application = model.application
        let clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var laws: [String: Set<String>] = [:]
        for rule in application.residency { if let law = rule.law { laws[rule.audience, default: []].insert(law) } }
        let joined = laws.mapValues { $0.sorted().joined(separator: ",") }
        let backend = try state.backend()
        let wanted = Set(cells)
        let timeout = timeout
        let read: @Sendable () async throws(CommandFailure) -> StatusDocument = { () async throws(CommandFailure) -> StatusDocument in
            guard let stored = try StateOptions.read(backend), !stored.resources.isEmpty else {
                throw CommandFailure("the state records nothing to report on", hint: "apply the application first: mcloud apply")
            }
            if let owner = stored.application, owner != application.name {
                throw CommandFailure("this state belongs to application \(owner), not \(application.name)")
            }
            let known = Set(stored.resources.compactMap(StatusDocument.cell(of:)))
            if let unknown = wanted.sorted().first(where: { !known.contains($0) }) {
                throw CommandFailure("the state records no cell '\(unknown)'\(Suggestion.didYouMean(unknown, in: known.sorted()).replacingQuotes)")
            }
            let (readings, legs) = await StatusReader(timeout: timeout, context: context).read(application: application.name, state: stored, clouds: clouds)
            return StatusDocument(
                application: application.name, time: context.clock.nowSeconds, resources: stored.resources, readings: readings, legs: legs,
                laws: joined, cells: wanted
            )
        }
        return read
    }
}
