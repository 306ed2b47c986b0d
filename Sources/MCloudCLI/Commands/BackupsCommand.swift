import Foundation
import MCloudCore
import MCloudProvider

/// `mcloud backups [CELL]`: what each DR leg's bucket holds, read through the bucket's provider.
struct BackupsCommand: Command {
    static let spec = CommandSpec(
        name: "backups",
        abstract: "List each DR leg's backups with their time, size, SHA-256 and age against the schedule.",
        discussion: "Reads the BackupBuckets the state records and lists each one's objects through its cloud's provider, newest first; the SHA-256 is the one the backup job recorded at upload. A leg that is empty, or whose latest backup is older than twice its schedule's interval, is flagged, and the command then exits 2 with --detailed-exitcode. Exits 1 when the state or a bucket cannot be read, or CELL has no DR leg.",
        options: [
            ManifestOptions.file,
            ManifestOptions.providers,
            StateOptions.option,
            CommandSpec.Option(names: ["--detailed-exitcode"], valueName: nil, help: "Exit 2 when a leg is empty or its latest backup is too old."),
        ],
        positionals: [CommandSpec.Positional(name: "CELL", help: "Only this database cell's leg, such as accounts-db@ru.", isOptional: true)]
    )

    var manifests: ManifestOptions
    var state: StateOptions
    var cell: String?
    var detailedExitCode: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        state = try StateOptions(arguments)
        cell = arguments.positionals.first
        detailedExitCode = arguments.flag("--detailed-exitcode")
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let stored = try StateOptions.read(try state.backend())
        let model = try PlacementLoader.model(manifests, context)
        let clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        // A lost cloud is not read (a failover recorded it as gone): its legs are named, not listed.
        let lost = Set(stored?.lost ?? [])
        let recorded = (stored?.resources ?? []).filter { $0.address.kind == .backupBucket }
        for leg in recorded where lost.contains(leg.cloud) {
            context.stderr.write("note: \(Self.cellName(of: leg))'s leg \(leg.providerID) is in \(leg.cloud), recorded as lost; it is not read\n")
        }
        var buckets = recorded.filter { !lost.contains($0.cloud) }.map { ($0, Self.cellName(of: $0)) }
        if let cell {
            buckets = buckets.filter { $0.1 == cell }
            guard !buckets.isEmpty else {
                let names = (stored?.resources ?? []).filter { $0.address.kind == .backupBucket }.map(Self.cellName)
                throw CommandFailure("the state records no DR leg of '\(cell)'\(Suggestion.didYouMean(cell, in: names).replacingQuotes)")
            }
        }
        let now = context.clock.nowSeconds
        let registry = context.providerCatalog
        var legs: [BackupsView.Leg] = []
        for (bucket, _) in buckets.sorted(by: { $0.1 < $1.1 }) {
            do throws(ProviderError) {
                guard let cloud = clouds[bucket.cloud] else {
                    throw ProviderError(.unavailable, "cloud \(bucket.cloud) of \(bucket.address) is not in the catalog")
                }
                guard let lister = try registry.provider(named: bucket.provider, for: cloud) as? any BackupLister else {
                    throw ProviderError(.unavailable, "the \(bucket.provider) provider cannot list buckets")
                }
                legs.append(try await BackupsView.Leg.read(bucket, through: lister, now: now))
            } catch {
                throw CommandFailure(error.message)
            }
        }
        context.stdout.write(BackupsView.render(legs, now: now))
        let flagged = legs.filter { !$0.problems(now: now).isEmpty }.count
        if flagged > 0 { context.stderr.write("warning: \(flagged) DR leg\(flagged == 1 ? "" : "s") cannot be relied on\n") }
        return detailedExitCode && flagged > 0 ? .changes : .success
    }

    /// The cell a bucket backs up, as plan names it (`accounts-db@ru`).
    static func cellName(of bucket: ResourceState) -> String {
        let body = ResourceBody(bucket.attributes)
        return body.cellName ?? body.name
    }
}
