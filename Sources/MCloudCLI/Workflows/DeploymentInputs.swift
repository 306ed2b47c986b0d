import Foundation
import MCloudCore
import MCloudCrypto
import MCloudEngine
import MCloudHTTP
import MCloudManifest
import MCloudPlanner
import MCloudProvider
import MCloudRender

/// What a plan starts from: the model, its placement, the desired resources, and a digest of the input files.
struct DeploymentInputs {
    var model: Model
    var placementPlan: PlacementPlan
    var desired: [DesiredResource]
    var inputDigest: String
    /// What the plan says on its cells of their database VMs (`DatabaseVMReview`) and of clients mcloud gives no
    /// credentials yet (`CredentialGap`), by cell name.
    var cellWarnings: [String: [String]] = [:]
    /// Every `dependsOn` edge as the connections each cluster makes (`Wiring`).
    var connections: [Connection] = []

    /// Reads and places the manifests without the `lost` clouds; warnings on stderr, errors thrown (with `explain`, a
    /// failed placement with every rejected cloud's reasons): among them a database VM that would get no backup
    /// identity (`DatabaseVMReview`) and an edge that cannot be wired (`Wiring`), refused before anything is read or made.
    static func load(
        _ manifests: ManifestOptions, lost: Set<String> = [], explain: Bool = false, reasons: Planner.Explanations = .every, _ context: CommandContext
    ) throws(CommandFailure) -> DeploymentInputs {
        let (model, plan) = try PlacementLoader.plan(manifests, lost: lost, explain: explain, reasons: reasons, context)
        let placement = Placement(plan)
        let review = DatabaseVMReview(model: model, placement: placement)
        let wiring = Wiring(model: model, placement: placement)
        guard review.errors.isEmpty, wiring.errors.isEmpty else {
            let counts = [
                review.errors.isEmpty ? nil : counted(review.errors.count, "database VM", "without a backup identity"),
                wiring.errors.isEmpty ? nil : counted(wiring.errors.count, "dependsOn edge", "that cannot be wired"),
            ]
            throw .summary(
                "\(counts.compactMap { $0 }.joined(separator: ", ")); nothing was planned",
                details: (review.errors + wiring.errors.map(\.description)).map { "error: \($0)" }
            )
        }
        let rendering = Rendering(model: model, placement: placement)
        return DeploymentInputs(
            model: model, placementPlan: plan, desired: DesiredResources.from(rendering), inputDigest: digest(manifests),
            cellWarnings: Dictionary(grouping: review.warnings.map { ($0.cell, $0.message) } + CredentialGap.gaps(wiring.connections, apis: model.clouds.reduce(into: [:]) { $0[$1.name] = $1.api }).map { ($0.cell, $0.message) }, by: \.0)
                .mapValues { $0.map(\.1) },
            connections: wiring.connections
        )
    }

    /// `2 database VMs without a backup identity`.
    private static func counted(_ count: Int, _ noun: String, _ tail: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s") \(tail)"
    }

    var clouds: [String: Cloud] {
        Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The clouds the placement uses whose catalog entry has no endpoints at all (a price list for a what-if), sorted.
    var cloudsWithoutEndpoints: [String] {
        let used = Set(placementPlan.services.flatMap { $0.replicas.map(\.cloud) }
            + placementPlan.databases.flatMap { [$0.primary] + ($0.backup.map { [$0] } ?? []) } + placementPlan.cdns.map(\.cloud))
        return model.clouds.filter { used.contains($0.name) && $0.endpoints == Cloud.Endpoints() }.map(\.name).sorted()
    }

    /// SHA-256 over every input file's bytes and its path relative to the folder given (so the same checkout gives
    /// the same digest wherever it lies), manifests then catalog, each in sorted order.
    static func digest(_ manifests: ManifestOptions) -> String {
        var bytes: [UInt8] = []
        for (role, roots) in [("manifests", manifests.paths), ("providers", [manifests.providers])] {
            for root in roots {
                for file in ManifestFiles.find(root).files.sorted() {
                    let relative = file == root ? (file as NSString).lastPathComponent : String(file.dropFirst(root.count)).trimmingCharacters(in: ["/"])
                    bytes += Array("\(role)/\(relative)".utf8) + [0]
                    bytes += Array(FileManager.default.contents(atPath: file) ?? Data()) + [0]
                }
            }
        }
        return "sha256:" + Hex.lowercase(SHA2.sha256(bytes))
    }
}
