import MCloudCore
import MCloudPlanner
import MCloudViews

/// `plan --lose CLOUD` and `--lose-vendor VENDOR`: the placement as if those clouds were gone, beside the current
/// one. Pure planning: no state, no credentials, nothing read from the clouds.
enum WhatIfRunner {
    static let lose = CommandSpec.Option(
        names: ["--lose"], valueName: "CLOUD",
        help: "What-if: place as if CLOUD were gone and show what moves, what it costs and what can no longer be placed; repeatable. Reads no state.",
        repeatable: true
    )
    static let loseVendor = CommandSpec.Option(
        names: ["--lose-vendor"], valueName: "VENDOR", help: "What-if: as --lose for every cloud of VENDOR; repeatable.", repeatable: true
    )

    struct Request {
        var clouds: [String]
        var vendors: [String]
        var json: Bool
        var explain: Bool
        var detailedExitCode: Bool

        var isEmpty: Bool { clouds.isEmpty && vendors.isEmpty }
    }

    /// Exit 1 when the input is invalid, the placement with every cloud fails, or a cell cannot be placed without the
    /// lost clouds (after printing the report); with --detailed-exitcode, 2 when a cell moves.
    static func run(_ request: Request, manifests: ManifestOptions, _ context: CommandContext) throws(CommandFailure) -> ExitCode {
        let model = try PlacementLoader.model(manifests, context)
        let lost = try lostClouds(request, in: model)
        let whatIf: WhatIf
        // Both placements show each cell's why and none of the unused clouds' reasons (a cell that cannot be placed
        // brings its own): counted is enough, and at hundreds of clouds far cheaper than every reason.
        switch WhatIf.plan(model, losing: lost, options: Planner.Options(explanations: .counted)) {
        case .success(let made): whatIf = made
        case .failure(let failure): throw PlacementLoader.failed(failure, explain: request.explain)
        }
        // The placement with every cloud is refused as plan refuses it; the one without says where a failover would
        // refuse to restore, since that is what this what-if previews (docs/dr.md).
        if let failure = RestorableLegs.failure(model, whatIf.current) { throw PlacementLoader.failed(failure, explain: request.explain) }
        for cell in RestorableLegs.failure(model, whatIf.after, options: Planner.Options(lost: lost))?.cells ?? [] {
            context.stderr.write("warning: without \(whatIf.lost.joined(separator: ", ")), \(cell.summary); a failover would refuse it\n")
        }
        let report = WhatIfReport(whatIf)
        context.stdout.write(request.json ? report.json.serialized() + "\n" : WhatIfView.render(report, explain: request.explain))
        if !report.unplaceable.isEmpty {
            let count = report.unplaceable.count
            throw CommandFailure("\(count) cell\(count == 1 ? "" : "s") cannot be placed without \(report.lost.joined(separator: ", "))")
        }
        return request.detailedExitCode && report.hasChanges ? .changes : .success
    }

    /// The named clouds and every cloud of the named vendors; throws naming each one the catalog does not have.
    static func lostClouds(_ request: Request, in model: Model) throws(CommandFailure) -> Set<String> {
        let names = model.clouds.map(\.name)
        let vendors = Set(model.clouds.map(\.vendor)).sorted()
        var lost = Set<String>()
        var unknown: [String] = []
        for cloud in request.clouds {
            guard names.contains(cloud) else {
                unknown.append("error: --lose: no cloud named '\(cloud)'\(Suggestion.didYouMean(cloud, in: names).replacingQuotes)")
                continue
            }
            lost.insert(cloud)
        }
        for vendor in request.vendors {
            guard vendors.contains(vendor) else {
                unknown.append("error: --lose-vendor: no cloud of vendor '\(vendor)'\(Suggestion.didYouMean(vendor, in: vendors).replacingQuotes)")
                continue
            }
            lost.formUnion(model.clouds.filter { $0.vendor == vendor }.map(\.name))
        }
        guard unknown.isEmpty else { throw .lines(unknown) }
        return lost
    }
}
