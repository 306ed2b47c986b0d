/// `-f` and `--providers`, shared by every command that reads manifests.
struct ManifestOptions {
    static let file = CommandSpec.Option(
        names: ["-f", "--file"], valueName: "PATH",
        help: "A manifest file, or a directory read recursively; repeatable (default: Manifests/).", repeatable: true
    )
    static let providers = CommandSpec.Option(
        names: ["--providers"], valueName: "DIR", help: "The cloud catalog directory (default: Providers/)."
    )

    var paths: [String]
    var providers: String

    init(_ arguments: ParsedArguments) {
        let files = arguments.all(Self.file.canonicalName)
        paths = files.isEmpty ? ["Manifests"] : files
        providers = arguments.value(Self.providers.canonicalName) ?? "Providers"
    }
}
