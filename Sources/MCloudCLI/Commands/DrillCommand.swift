import MCloudCore
import MCloudDatabaseEngines
import MCloudEngine
import MCloudPlanner
import MCloudProvider
import MCloudViews

/// `mcloud drill CELL`: proves a DR leg restores, and how fast.
struct DrillCommand: Command {
    static let spec = CommandSpec(
        name: "drill",
        abstract: "Restore a database cell's latest DR backup into a scratch server, measure RPO and RTO, and remove it.",
        discussion: "Reads the cell's DR leg from the state and its newest backup from the bucket, makes a scratch volume and database server in the leg's cloud (or --cloud) that loads that backup as it boots, with the engine catalog's restore step, and waits for the server's report in the bucket. Prints the RPO (the backup's age when the drill began) and the RTO (from making the scratch server until its engine answered with the data restored), then deletes the scratch server and volume whatever happened; the report stays in the bucket beside the backups as the drill's record. Refuses a target cloud where the cell's data may not live (naming the law) or that cannot run the cell's engine. Holds the state lock; changes nothing the state records. Exits 1 when the drill fails or times out.",
        options: [
            ManifestOptions.file,
            ManifestOptions.providers,
            StateOptions.option,
            CommandSpec.Option(names: ["--cloud"], valueName: "CLOUD", help: "Restore there instead of the DR leg's own cloud."),
            RestoreTimeout.option(waitingFor: "the restore"),
            RecoveryTarget.option,
            CommandSpec.Option(names: ["--json"], valueName: nil, help: "Print the drill's report as JSON (docs/dr.md), progress on standard error."),
        ],
        positionals: [CommandSpec.Positional(name: "CELL", help: "The database cell, such as accounts-db@ru.")]
    )

    var manifests: ManifestOptions
    var state: StateOptions
    var cell: String
    var cloud: String?
    var timeout: Int
    var json: Bool
    var target: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        state = try StateOptions(arguments)
        cell = arguments.positionals.first ?? ""
        cloud = arguments.value("--cloud")
        timeout = try RestoreTimeout.seconds(arguments)
        json = arguments.flag("--json")
        target = try RecoveryTarget.time(arguments)
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let backend = try state.backend()
        return try await ApplyRunner.withLock(backend, operation: "drill", context) { _, _ throws(CommandFailure) in
            let recorded = try StateOptions.read(backend) ?? State()
            let model = try PlacementLoader.model(manifests, context)
            let workflow = DrillWorkflow(cell: cell, cloud: cloud, timeout: timeout, context: context, target: target)
            let setup = try workflow.prepare(model, recorded)
            let clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            // With --json, standard output holds the report alone.
            let progress = json ? context.stderr : context.stdout
            let report = try await workflow.run(setup, clouds: clouds) { event in
                switch event {
                case .began(let report): progress.write(DrillView.header(report))
                case .made(let address): progress.write("  made \(address)\n")
                case .deleted(let address): progress.write("  deleted \(address)\n")
                case .leftBehind(let leftover):
                    context.stderr.write("error: deleting the scratch \(leftover.address): \(leftover.error); the next apply deletes it (it carries the application's labels)\n")
                }
            }
            context.stdout.write(json ? report.json.serialized() + "\n" : DrillView.verdict(report))
            if let failure = report.failure { throw CommandFailure("the drill of \(cell) failed: \(failure)") }
            return report.passed ? .success : .failure
        }
    }
}
