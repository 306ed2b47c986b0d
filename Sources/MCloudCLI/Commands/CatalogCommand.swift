import MCloudCore
import MCloudManifest
import MCloudProvider

/// `mcloud catalog offers [--cloud NAME]...`: the catalog's managed offers set beside what each cloud's API sells.
struct CatalogCommand: Command {
    static let spec = CommandSpec(
        name: "catalog",
        abstract: "Check the cloud catalog against the clouds' APIs: the managed engines and versions each sells beside offers.dbaas.",
        discussion: "offers: asks each cloud's API, read-only and all at once, which managed database engines and versions it sells (RDS DescribeDBEngineVersions on AWS, Trove's datastores on OpenStack) and prints them by series beside the catalog's offers.dbaas. A series the catalog lists that the API does not sell, one the API sells that the catalog does not list, an engine listed without versions, and an engine the API sells that the catalog leaves out are differences; under a cloud that differs, what its API sells is written as an offers.dbaas value to copy from, so validate and plan check versions against it. Reads only the catalog (--providers), no application. Exits 1 when the catalog or a cloud cannot be read; with --detailed-exitcode, 2 when the catalog and an API differ.",
        options: [
            ManifestOptions.providers,
            CommandSpec.Option(names: ["--cloud"], valueName: "NAME", help: "Only this cloud of the catalog; repeatable (default: every cloud).", repeatable: true),
            CommandSpec.Option(names: ["--detailed-exitcode"], valueName: nil, help: "Exit 0 when the catalog matches every API, 2 when not, 1 on error."),
        ],
        positionals: [CommandSpec.Positional(name: "SUBCOMMAND", help: "offers.")]
    )

    var providers: String
    var clouds: [String]
    var detailedExitCode: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let name = arguments.positionals.first ?? ""
        guard name == "offers" else {
            throw UsageError(message: "unknown catalog subcommand '\(name)'\(Suggestion.didYouMean(name, in: ["offers"]).replacingQuotes)")
        }
        providers = arguments.value(ManifestOptions.providers.canonicalName) ?? "Providers"
        clouds = arguments.all("--cloud")
        detailedExitCode = arguments.flag("--detailed-exitcode")
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let loaded = ManifestLoader.catalog(providers: providers)
        guard let catalog = loaded.clouds else {
            let count = loaded.diagnostics.errorCount
            throw .summary("\(count) error\(count == 1 ? "" : "s") in the catalog; no cloud was asked", details: loaded.diagnostics.map { "\($0)" })
        }
        for diagnostic in loaded.diagnostics { context.stderr.write("\(diagnostic)\n") }
        let names = catalog.map(\.name)
        if let unknown = clouds.first(where: { !names.contains($0) }) {
            throw CommandFailure("the catalog has no cloud '\(unknown)'\(Suggestion.didYouMean(unknown, in: names).replacingQuotes)")
        }
        let asked = clouds.isEmpty ? catalog : catalog.filter { clouds.contains($0.name) }
        let read = await Self.read(asked, context.providerCatalog)
        context.stdout.write(OffersView.render(read))
        if read.contains(where: { $0.failure != nil }) { return .failure }
        return detailedExitCode && read.contains(where: \.differs) ? .changes : .success
    }

    /// Every cloud's API at once, in the catalog's order; a cloud that cannot be read says why.
    static func read(_ clouds: [Cloud], _ catalog: any ProviderCatalog) async -> [OffersView.CloudOffers] {
        let results = await withTaskGroup(of: (Int, OffersView.CloudOffers).self) { group in
            for (index, cloud) in clouds.enumerated() {
                group.addTask { (index, await read(cloud, catalog)) }
            }
            var collected: [Int: OffersView.CloudOffers] = [:]
            for await (index, offers) in group { collected[index] = offers }
            return collected
        }
        return clouds.indices.compactMap { results[$0] }
    }

    private static func read(_ cloud: Cloud, _ catalog: any ProviderCatalog) async -> OffersView.CloudOffers {
        do throws(ProviderError) {
            let provider = try catalog.provider(named: ProviderName(rawValue: cloud.api.rawValue), for: cloud)
            guard let lister = provider as? any ManagedOfferLister else {
                return OffersView.CloudOffers(cloud: cloud.name, source: "", rows: [], failure: "the \(cloud.api.rawValue) provider cannot list managed offers")
            }
            return OffersView.compare(cloud, try await lister.managedOffers())
        } catch {
            return OffersView.CloudOffers(cloud: cloud.name, source: "", rows: [], failure: error.message)
        }
    }
}
