import Foundation
import MCloudCore
import MCloudEngine
import MCloudPlanner
import MCloudProvider
import MCloudRender
import MCloudSecrets

/// `mcloud render`: the placement as a GitOps tree, Kubernetes manifests per cluster, infrastructure per cloud and
/// the Argo CD and Flux objects that pick it up; or, with `--check`, whether a directory holds exactly that tree.
struct RenderCommand: Command {
    static let out = CommandSpec.Option(
        names: ["--out"], valueName: "DIR", help: "The directory to write; mcloud owns its bootstrap/, clusters/ and infrastructure/."
    )
    static let check = CommandSpec.Option(
        names: ["--check"], valueName: "DIR",
        help: "Write nothing: compare DIR with what would be rendered. Exits 0 when identical, 2 when not (listing the files, with a unified diff of each changed one)."
    )
    static let force = CommandSpec.Option(
        names: ["--force"], valueName: nil, help: "Write into a non-empty directory that mcloud render did not write."
    )
    static let repository = CommandSpec.Option(
        names: ["--repo"], valueName: "URL",
        help: "The Git repository (https://, http:// or ssh://) the tree is committed to, for the bootstrap objects (default: the one DIR was last rendered for)."
    )
    static let branch = CommandSpec.Option(
        names: ["--branch"], valueName: "BRANCH", help: "The branch Argo CD and Flux follow (default: the one DIR was last rendered for, else \(Bootstrap.Source.defaultBranch))."
    )
    static let fluxSecret = CommandSpec.Option(
        names: ["--flux-secret"], valueName: "NAME",
        help: "The Secret in flux-system with the credentials Flux reads a private repository with (default: the one DIR was last rendered for; '' for none)."
    )
    static let stateOption = CommandSpec.Option(
        names: ["--state"], valueName: "URL",
        help: "Read the state (file://PATH or postgres://..., without locking it) and write the addresses the last apply recorded into the EndpointSlices and egress NetworkPolicies, which are otherwise rendered empty and open."
    )
    static let spec = CommandSpec(
        name: "render",
        abstract: "Write the placement as a GitOps tree that Argo CD and Flux pick up, or check that a directory holds it.",
        discussion: "Writes DIR/clusters/<cloud>/kustomization.yaml with one file per object under DIR/clusters/<cloud>/<namespace>/, DIR/infrastructure/<cloud>/ for databases, volumes, security groups, backups and CDNs, and DIR/bootstrap/argocd/ (an ApplicationSet with one Application per cluster) and DIR/bootstrap/flux/ (a GitRepository and one Kustomization per cluster) for the repository and branch given (docs/gitops.md). The same input gives byte-identical files; files of cells no longer placed are removed. Each connection to a database VM with users gets a Secret, written only as a SOPS document encrypted to the operator's age recipient and the cluster's (endpoints.kubernetes.ageRecipient), its values derived from the operator's age identity (MCLOUD_AGE_KEY_FILE, SOPS_AGE_KEY_FILE, ~/.config/mcloud/age.key); SOURCE_DATE_EPOCH sets its lastmodified. With --state URL the EndpointSlices and egress NetworkPolicies hold the addresses the last apply recorded (read without locking the state), so a self-healing sync keeps them; the same manifests and state give the same tree. The tree is written aside and swapped in, so an error leaves DIR as it was. With --check DIR nothing is written. Exits 1 when the input is invalid, no placement meets every rule, DIR cannot be read or written, or a Secret is to be written and no age identity is readable.",
        options: [ManifestOptions.file, ManifestOptions.providers, out, check, repository, branch, fluxSecret, force, stateOption]
    )

    enum Mode {
        case write(directory: String, force: Bool)
        case check(directory: String)
    }

    var manifests: ManifestOptions
    var mode: Mode
    var repositoryURL: String?
    var branchName: String?
    var fluxSecretName: String?
    /// `--state`: where the recorded addresses come from; nil renders without them.
    var state: StateOptions?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        switch (arguments.value(Self.out.canonicalName), arguments.value(Self.check.canonicalName)) {
        case (let directory?, nil) where !directory.isEmpty:
            mode = .write(directory: directory, force: arguments.flag(Self.force.canonicalName))
        case (nil, let directory?) where !directory.isEmpty:
            guard !arguments.flag(Self.force.canonicalName) else { throw UsageError(message: "--force applies to --out; --check writes nothing") }
            mode = .check(directory: directory)
        case (_?, _?):
            throw UsageError(message: "give --out DIR to write the tree or --check DIR to compare with it, not both")
        default:
            throw UsageError(message: "render needs --out DIR (write the tree) or --check DIR (compare a directory with it)")
        }
        repositoryURL = arguments.value(Self.repository.canonicalName)
        if let repositoryURL, let problem = Bootstrap.Source.urlProblem(repositoryURL) { throw UsageError(message: "--repo: \(problem)") }
        branchName = arguments.value(Self.branch.canonicalName)
        if let branchName, let problem = Bootstrap.Source.branchProblem(branchName) { throw UsageError(message: "--branch: \(problem)") }
        state = arguments.value(Self.stateOption.canonicalName) == nil ? nil : try StateOptions(arguments)
        fluxSecretName = arguments.value(Self.fluxSecret.canonicalName)
        if let fluxSecretName, !fluxSecretName.isEmpty, !Bootstrap.Source.isSecretName(fluxSecretName) {
            throw UsageError(message: "--flux-secret: \"\(fluxSecretName)\" is not a Secret name: use lower-case letters, digits, '-' and '.'")
        }
    }

    var directory: String {
        switch mode {
        case .write(let directory, _), .check(let directory): return directory
        }
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let remembered: Bootstrap.Source?
        do throws(TreeWriter.Failure) {
            if case .check = mode { try TreeComparison.requireDirectory(directory) }
            remembered = try RenderMarker.read(directory: directory)?.source
        } catch {
            throw CommandFailure("\(error)")
        }
        guard let source = resolvedSource(remembered: remembered) else {
            throw CommandFailure(
                "render writes bootstrap/ for Argo CD and Flux, which read the tree from its Git repository: pass --repo URL (later renders of \(directory) remember it)"
            )
        }
        let (model, plan) = try PlacementLoader.plan(manifests, reasons: .none, context)
        let rendering = try recorded(Rendering(model: model, placement: Placement(plan)))
        let tree: RenderedTree
        do throws(SecretsError) {
            tree = try rendering.sealedTree(with: Bootstrap(model: model, rendering: rendering, source: source), sealing: try sealing(rendering, model, context))
        } catch {
            throw CommandFailure("\(error.description)")
        }
        let marker = RenderMarker(source: source)
        do throws(TreeWriter.Failure) {
            switch mode {
            case .write(let directory, let force):
                try TreeWriter.write(tree, marker: marker, to: directory, force: force)
            case .check(let directory):
                let comparison = try TreeComparison.compare(tree, marker: marker, with: directory)
                guard comparison.isIdentical else {
                    context.stdout.write(comparison.report(directory: directory))
                    context.stdout.write("\nRender with --out \(directory) to bring it up to date.\n")
                    return .changes
                }
                context.stdout.write("\(directory) is what mcloud renders now: \(tree.files.count + 1) files identical.\n")
                return .success
            }
        } catch {
            throw CommandFailure("\(error)")
        }
        let summary = "\(rendering.objectCount) Kubernetes objects for \(count(rendering.clusters.count, "cluster")), \(rendering.resourceCount) infrastructure resources for \(count(rendering.infrastructure.count, "cloud"))"
        context.stdout.write("Rendered \(plan.application) into \(directory): \(summary); bootstrap for \(source.url) (\(source.branch)).\n")
        return .success
    }

    /// With `--state`, the rendering's EndpointSlices and egress policies with the addresses the state recorded for
    /// them when they named the same sources (`EndpointSliceFill`, as a plan without refresh fills them): a GitOps
    /// controller that heals drift then keeps what apply wrote instead of emptying the slices and opening the
    /// policies (docs/gitops.md). A state with none of them leaves the rendering as it is.
    private func recorded(_ rendering: Rendering) throws(CommandFailure) -> Rendering {
        guard let state else { return rendering }
        guard let recorded = try StateOptions.read(try state.backend()) else {
            throw CommandFailure("--state: the state records nothing yet: apply first, or render without --state")
        }
        // Only the slices and policies become JSON: the rest of the tree is written as rendered.
        let desired = rendering.clusters.flatMap { cluster in
            cluster.objects.filter { ResourceBody.addressFilledKinds.contains(ResourceKind($0.kind)) }.map { object in
                DesiredResource(
                    address: ResourceAddress(object.address(cloud: cluster.cloud)), provider: .kubernetes, cloud: cluster.cloud, type: ResourceKind(object.kind),
                    body: object.body.json, dependencies: []
                )
            }
        }
        let filled = EndpointSliceFill.filled(desired, reported: [:], state: recorded)
        var changed: [String: JSONValue] = [:]
        for (before, after) in zip(desired, filled) where !FieldDiff.same(before.body, after.body) { changed[after.address.rawValue] = after.body }
        return rendering.filling(changed)
    }

    /// How the connections' Secrets are derived and encrypted: from the operator's age identity, which only a
    /// rendering with Secrets needs; without it, nothing is written. `lastmodified` is `SOURCE_DATE_EPOCH` (the
    /// reproducible-builds convention for the input's time) when set, else the scheme's epoch.
    private func sealing(_ rendering: Rendering, _ model: Model, _ context: CommandContext) throws(SecretsError) -> SecretSealing? {
        guard let first = rendering.secrets.first else { return nil }
        let identity: AgeIdentity
        do {
            identity = try AgeKeyFile.load(environment: context.environment)
        } catch {
            throw .invalidInput(reason: "\(first.service) in \(first.cloud) connects to \(first.database), and render writes its Secret (\(rendering.secrets.count) in all) only encrypted, with values derived from the operator's age identity, which is not available: \(error.description)")
        }
        var lastModified = SecretSealing.epoch
        if let text = context.environment["SOURCE_DATE_EPOCH"] {
            guard let seconds = Int(text), seconds >= 0 else { throw .invalidInput(reason: "SOURCE_DATE_EPOCH is \"\(text)\", not a number of seconds since 1970") }
            lastModified = Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        return try SecretSealing(identity: identity, clouds: model.clouds, lastModified: lastModified)
    }

    /// The flags given, else what the directory was last rendered for; the branch finally defaults to main. Nil
    /// when no repository is known.
    private func resolvedSource(remembered: Bootstrap.Source?) -> Bootstrap.Source? {
        guard let url = repositoryURL ?? remembered?.url else { return nil }
        let secret = fluxSecretName.map { $0.isEmpty ? nil : $0 } ?? remembered?.fluxSecret
        return Bootstrap.Source(url: url, branch: branchName ?? remembered?.branch ?? Bootstrap.Source.defaultBranch, fluxSecret: secret)
    }

    private func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
