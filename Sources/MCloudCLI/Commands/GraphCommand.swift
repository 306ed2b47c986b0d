import Foundation
import MCloudViews
import MCloudCore

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
        let inputs = try DeploymentInputs.load(manifests, context)
        let dot = ResourceGraph.dot(application: inputs.model.application.name, resources: inputs.desired)
        guard format != .dot else {
            context.stdout.write(dot)
            return .success
        }
        let svg = try Self.draw(dot, context)
        if format == .svg {
            context.stdout.write(svg)
        } else {
            let title = inputs.model.application.name
            context.stdout.write("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>\(title): resources</title></head>\n<body>\n\(svg)\n</body></html>\n")
        }
        return .success
    }

    /// Graphviz's `dot -Tsvg`, found on PATH.
    private static func draw(_ dot: String, _ context: CommandContext) throws(CommandFailure) -> String {
        let path = (context.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/dot" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else {
            throw CommandFailure("svg and html are drawn by Graphviz's 'dot', which is not on PATH (Debian: apt-get install graphviz); --format dot needs nothing")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-Tsvg"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = Pipe()
        do {
            try process.run()
        } catch {
            throw CommandFailure("cannot run \(path): \(error.localizedDescription)")
        }
        input.fileHandleForWriting.write(Data(dot.utf8))
        try? input.fileHandleForWriting.close()
        let svg = output.fileHandleForReading.readDataToEndOfFile()
        while process.isRunning { usleep(1000) }
        guard process.terminationStatus == 0 else { throw CommandFailure("\(path) failed with status \(process.terminationStatus)") }
        return String(decoding: svg, as: UTF8.self)
    }
}
