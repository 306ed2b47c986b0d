@testable import MCloudCLI
import Testing

@Suite struct HelpTests {
    /// The overview, `help COMMAND`, and every command's `--help`: a command without its golden fails here.
    static let helpCases: [([String], String)] = [(["--help"], "help-mcloud.txt"), (["help", "validate"], "help-validate.txt")]
        + MCloud.commands.map { ([$0.spec.name, "--help"], "help-\($0.spec.name).txt") }

    @Test(arguments: helpCases)
    func helpIsGeneratedFromEachCommandsDeclaration(_ arguments: [String], _ golden: String) async throws {
        let run = await mcloudRun(arguments)
        #expect(run.exitCode == 0)
        #expect(run.stderr.isEmpty)
        try Golden.check(run.stdout, named: golden)
    }

    @Test func noArgumentsPrintsTheOverviewAndFails() async {
        let run = await mcloudRun([])
        #expect(run.exitCode == 1)
        #expect(run.stderr.hasPrefix("USAGE: mcloud COMMAND [OPTIONS]"))
    }

    struct Misuse: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var firstLine: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    @Test(arguments: [
        Misuse(arguments: ["valdate"], firstLine: "error: unknown command 'valdate'; did you mean 'validate'?"),
        Misuse(arguments: ["deploy"], firstLine: "error: unknown command 'deploy'"),
        Misuse(arguments: ["validate", "--fiel", "x"], firstLine: "error: unknown option '--fiel'; did you mean '--file'?"),
        Misuse(arguments: ["validate", "--json"], firstLine: "error: unknown option '--json'"),
        Misuse(arguments: ["validate", "-f"], firstLine: "error: option '-f' needs a value (PATH)"),
        Misuse(arguments: ["validate", "extra"], firstLine: "error: unexpected argument 'extra'"),
        Misuse(arguments: ["validate", "--providers", "a", "--providers", "b"], firstLine: "error: option '--providers' may be given only once"),
        Misuse(arguments: ["validate", "--help=yes"], firstLine: "error: option '--help' takes no value"),
        Misuse(arguments: ["version", "now"], firstLine: "error: unexpected argument 'now'"),
        Misuse(arguments: ["render"], firstLine: "error: render needs --out DIR (write the tree) or --check DIR (compare a directory with it)"),
        Misuse(arguments: ["render", "--out", "a", "--check", "b"], firstLine: "error: give --out DIR to write the tree or --check DIR to compare with it, not both"),
        Misuse(arguments: ["render", "--check", "a", "--force"], firstLine: "error: --force applies to --out; --check writes nothing"),
        Misuse(
            arguments: ["render", "--out", "a", "--repo", "git@git.example:org/deploy.git"],
            firstLine: "error: --repo: \"git@git.example:org/deploy.git\" is an scp-style address, which Flux cannot read; write it as ssh://git@git.example/org/deploy.git"
        ),
        Misuse(arguments: ["render", "--out", "a", "--repo", "https://g/x.git", "--branch", "a..b"], firstLine: "error: --branch: \"a..b\" is not a Git branch name"),
        Misuse(arguments: ["render", "--out", "a", "--flux-secret", "Git_Auth"], firstLine: "error: --flux-secret: \"Git_Auth\" is not a Secret name: use lower-case letters, digits, '-' and '.'"),
    ])
    func misuseIsAUsageErrorWithTheCommandsUsage(_ misuse: Misuse) async {
        let run = await mcloudRun(misuse.arguments)
        #expect(run.exitCode == 1)
        #expect(run.stdout.isEmpty)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == misuse.firstLine)
        #expect(lines.dropFirst().first?.hasPrefix("Usage: mcloud ") == true || lines.contains("COMMANDS:"))
    }
}
