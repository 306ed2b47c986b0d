import MCloudCore
import MCloudRender
import MCloudPlanner

/// `mcloud render`: the placement as a GitOps tree, Kubernetes manifests per cluster and infrastructure per cloud.
struct RenderCommand: Command {
    static let out = CommandSpec.Option(
        names: ["--out"], valueName: "DIR", help: "The directory to write; mcloud owns its clusters/ and infrastructure/.", isRequired: true
    )
    static let force = CommandSpec.Option(
        names: ["--force"], valueName: nil, help: "Write into a non-empty directory that mcloud render did not write."
    )
    static let spec = CommandSpec(
        name: "render",
        abstract: "Write the placement as a GitOps tree: Kubernetes manifests per cluster, infrastructure per cloud.",
        discussion: "Writes DIR/clusters/<cloud>/kustomization.yaml with one file per object under DIR/clusters/<cloud>/<namespace>/, and DIR/infrastructure/<cloud>/ for databases, volumes, security groups, backups and CDNs (docs/gitops.md). The same input gives byte-identical files; files of cells no longer placed are removed. The tree is written aside and swapped in, so an error leaves DIR as it was. Exits 1 when the input is invalid, no placement meets every rule, or DIR cannot be written.",
        options: [ManifestOptions.file, ManifestOptions.providers, out, force]
    )

    var manifests: ManifestOptions
    var directory: String
    var force: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        guard let directory = arguments.value(Self.out.canonicalName), !directory.isEmpty else {
            throw UsageError(message: "option --out needs a directory")
        }
        self.directory = directory
        force = arguments.flag(Self.force.canonicalName)
    }

    func run(_ context: CommandContext) async -> ExitCode {
        guard let (model, plan) = PlacementLoader.plan(manifests, context) else { return .failure }
        let rendering = Rendering(model: model, placement: Placement(plan))
        do throws(TreeWriter.Failure) {
            try TreeWriter.write(rendering.tree, to: directory, force: force)
        } catch {
            context.stderr.write("error: \(error)\n")
            return .failure
        }
        let summary = "\(rendering.objectCount) Kubernetes objects for \(count(rendering.clusters.count, "cluster")), \(rendering.resourceCount) infrastructure resources for \(count(rendering.infrastructure.count, "cloud"))"
        context.stdout.write("Rendered \(plan.application) into \(directory): \(summary).\n")
        return .success
    }

    private func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
