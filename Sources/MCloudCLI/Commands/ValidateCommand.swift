import MCloudCore
import MCloudManifest

/// `mcloud validate`: reads manifests and the cloud catalog and reports every problem, changing nothing.
struct ValidateCommand: Command {
    static let spec = CommandSpec(
        name: "validate",
        abstract: "Check manifests and the cloud catalog, reporting every problem as FILE:LINE:COL.",
        discussion: "Reads every *.yaml and *.yml file under the given paths in sorted order. A folder holding several applications, each in a folder of its own (as Manifests/ holds the examples), has each validated on its own with the catalog; several -f paths are one input, as plan reads them. Exits 0 when the input is valid (warnings are printed but allowed), 1 when there is any error.",
        options: [
            ManifestOptions.file,
            ManifestOptions.providers,
        ]
    )

    var manifests: ManifestOptions

    init(_ arguments: ParsedArguments) {
        manifests = ManifestOptions(arguments)
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        // Only one folder is split: two -f paths are one input, as a plan reads them, so validate refuses what plan refuses.
        guard manifests.paths.count == 1, let applications = ApplicationFolders.split(paths: manifests.paths) else {
            return check(ManifestLoader.load(paths: manifests.paths, providers: manifests.providers), label: "", context) ? .success : .failure
        }
        var valid = true
        for application in applications {
            let set = ManifestLoader.load(paths: application.files, providers: manifests.providers)
            valid = check(set, label: "\(application.folder): ", context) && valid
        }
        return valid ? .success : .failure
    }

    /// Prints the diagnostics and a summary line, starting with `label`; whether the set is valid.
    private func check(_ set: ManifestSet, label: String, _ context: CommandContext) -> Bool {
        for diagnostic in set.diagnostics {
            context.stderr.write("\(diagnostic)\n")
        }
        guard let model = set.model else {
            context.stderr.write("\(label)validate: \(Self.count(set.diagnostics.errorCount, "error")), \(Self.count(set.diagnostics.warningCount, "warning"))\n")
            return false
        }
        var parts = [
            Self.count(model.clouds.count, "cloud"),
            "application \(model.application.name)",
            Self.count(model.services.count, "service"),
            Self.count(model.databases.count, "database"),
            Self.count(model.cdns.count, "CDN"),
        ]
        if !model.policies.isEmpty {
            let rules = model.policies.reduce(0) { $0 + $1.rules.count }
            let policies = model.policies.count == 1 ? "1 policy" : "\(model.policies.count) policies"
            parts.append("\(policies) with \(Self.count(rules, "rule"))")
        }
        context.stdout.write("\(label)Valid: \(parts.joined(separator: ", ")); \(Self.count(model.cells.count, "cell")) in \(Self.count(set.files.count, "file")).\n")
        return true
    }

    static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
