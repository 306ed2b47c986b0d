import MCloudHTTP
import MCloudYAML

/// `mcloud version`: the tool's version and the C libraries it runs on.
struct VersionCommand: Command {
    static let spec = CommandSpec(name: "version", abstract: "Print mcloud's version and the versions of the libraries it links.")

    init() {}

    init(_ arguments: ParsedArguments) {}

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        context.stdout.write("""
            mcloud \(MCloud.version)
            libyaml \(LibYAMLVersion.string)
            libcurl \(HTTPLibraryVersions.curl)
            \(HTTPLibraryVersions.openSSL)

            """)
        return .success
    }
}
