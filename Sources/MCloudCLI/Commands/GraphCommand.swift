import Foundation
import MCloudViews
import MCloudCore
import MCloudPlanner

/// `mcloud graph`: the resources of the placement and what each needs, for Graphviz or a browser.
struct GraphCommand: Command {
    static let spec = CommandSpec(
        name: "graph",
        abstract: "Print the resources the placement needs and their dependencies as a graph.",
        discussion: "dot (default) is Graphviz's language and needs nothing else; svg and html are drawn by Graphviz's 'dot' program, which must be installed (Debian: apt-get install graphviz). One cluster per cloud; an arrow points from a resource to what must exist before it.",
        options: [
            ManifestOptions.file,
            ManifestOptions.providers,
            CommandSpec.Option(names: ["--format"], valueName: "FORMAT", help: "dot, svg or html (default: dot)."),
        ]
    )

    enum Format: String, CaseIterable {
        case dot, svg, html
    }

    var manifests: ManifestOptions
    var format: Format

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        let text = arguments.value("--format") ?? "dot"
        guard let format = Format(rawValue: text) else {
            throw UsageError(message: "--format must be dot, svg or html, not \"\(text)\"")
        }
        self.format = format
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let inputs = try DeploymentInputs.load(manifests, reasons: .none, context)
        let dot = ResourceGraph.dot(application: inputs.model.application.name, resources: inputs.desired)
        guard format != .dot else {
            context.stdout.write(dot)
            return .success
        }
        let svg = try Graphviz.svg(dot, context)
        if format == .svg {
            context.stdout.write(svg)
        } else {
            let title = inputs.model.application.name
            context.stdout.write("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>\(title): resources</title></head>\n<body>\n\(svg)\n</body></html>\n")
        }
        return .success
    }
}
