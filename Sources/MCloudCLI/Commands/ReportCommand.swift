import Foundation
import MCloudCore
import MCloudEngine
import MCloudViews

/// `mcloud report`: the plan as one HTML page with a placement map, for a reviewer's browser.
struct ReportCommand: Command {
    static let spec = CommandSpec(
        name: "report",
        abstract: "Write the plan as one self-contained HTML page: a placement map, costs, laws, every cell's reasons and the changes.",
        discussion: "Without --plan, places the manifests as 'plan --placement-only' does (no state, no cloud, no credentials) and draws that; with a plan saved by 'mcloud plan --out', draws its placement and its resource changes. The manifests and catalog give the audiences, the laws on their data and the clouds' vendors and jurisdictions. With --status, the live health read as 'mcloud status' reads it (the state, every cloud it names, each within --timeout) is drawn on it: each cell coloured by its health in each cloud with the first reason as its tooltip, a cloud that could not be read greyed with the reason, the application's health at the top. The page has its style, script and drawings inline and loads nothing from a network.",
        options: [
            ManifestOptions.file,
            ManifestOptions.providers,
            CommandSpec.Option(names: ["--plan"], valueName: "PLANFILE", help: "A plan saved by 'mcloud plan --out' to draw, with its resource changes."),
            CommandSpec.Option(names: ["--out"], valueName: "FILE", help: "Where to write the page ('-': standard output).", isRequired: true),
            CommandSpec.Option(names: ["--status"], valueName: nil, help: "Draw the live health on the page, read as 'mcloud status' reads it."),
            StateOptions.option,
            CommandSpec.Option(
                names: ["--timeout"], valueName: "SECONDS", help: "With --status, give each cloud SECONDS to answer (default: \(StatusCommand.defaultTimeout))."
            ),
        ]
    )

    var manifests: ManifestOptions
    var planFile: String?
    var out: String
    /// With --status: where the state is and each cloud's time to answer.
    var status: (state: StateOptions, timeout: Int)?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        planFile = arguments.value("--plan")
        out = arguments.value("--out") ?? "-"
        guard arguments.flag("--status") else {
            if let option = ["--state", "--timeout"].first(where: { arguments.value($0) != nil }) {
                throw UsageError(message: "\(option) is read only with --status, which draws the live health")
            }
            return
        }
        status = (try StateOptions(arguments), try StatusCommand.seconds("--timeout", arguments, default: StatusCommand.defaultTimeout))
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let document: PlanDocument
        let model: Model
        let source = manifests.paths.joined(separator: ", ")
        if let planFile {
            let loaded = try PlacementLoader.model(manifests, context)
            let saved = try PlanRunner.read(planFile)
            guard saved.placement != nil else { throw CommandFailure("\(planFile) places nothing (a destroy plan); report draws a plan of where things run") }
            guard saved.application == loaded.application.name else {
                throw CommandFailure("\(planFile) plans application \(saved.application), but the manifests describe \(loaded.application.name)")
            }
            if let digest = saved.deployment?.inputDigest, digest != DeploymentInputs.digest(manifests) {
                context.stderr.write("note: the manifests or the catalog changed since \(planFile) was made; the page draws the saved plan\n")
            }
            (document, model) = (saved, loaded)
        } else {
            let (loaded, plan) = try PlacementLoader.plan(manifests, context)
            let note = "the report placed the manifests itself, reading no state and no cloud; to draw the changes too, save a plan (mcloud plan --out FILE) and give it with --plan FILE"
            (document, model) = (PlanDocument(placementOnly: PlacementReport(plan), application: loaded.application.name, note: note), loaded)
        }
        let origin = planFile.map { "\(source), the saved plan \($0)" } ?? "\(source), placed without state or credentials"
        var live: StatusDocument?
        if let status {
            live = try await StatusReader.reading(manifests: manifests, state: status.state, cells: [], timeout: status.timeout, context)()
        }
        let page = PlanReport.html(document, setting: ReportSetting(model: model, source: origin), status: live)
        guard out != "-" else {
            context.stdout.write(page)
            return .success
        }
        guard AtomicFile.write(Data(page.utf8), to: out, what: "the report", context) else { throw .reported }
        let placed = document.placement.map { "\($0.cellsOnClouds) of the catalog's \(model.clouds.count)" } ?? "no cells"
        context.stdout.write("Wrote \(out): \(placed), \(page.utf8.count / 1024) KiB. Open it in a browser; it needs no network.\n")
        return .success
    }
}
