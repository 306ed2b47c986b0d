import Foundation
import MCloudTestSupport
import Testing

/// The scripts a newcomer runs first say what is wrong in words that point to the fix: a toolchain that cannot start
/// names its binary and the loader's error, the optional comparison says the shared bench is absent, and each group
/// of install-deps.sh names the packages its task needs.
@Suite struct ScriptTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// Runs bash with a clean environment (plus `environment`) in the repository: its exit code and all it printed.
    static func bash(_ script: String, environment: [String: String] = [:]) async throws -> Command {
        try await Command.run(
            "/bin/bash", ["-c", script], environment: ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()].merging(environment) { _, new in new },
            inheritsEnvironment: false, directory: root
        )
    }

    /// Regression: on a minimal Debian without libncurses6 the toolchain was found but could not start, and the script
    /// said "no Swift toolchain found".
    @Test func aToolchainThatCannotStartIsNamedWithTheLoadersError() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-broken-toolchain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // What the dynamic loader prints for a binary whose library is missing, exit code 127 included.
        let loader = "#!/bin/sh\necho \"$0: error while loading shared libraries: libncurses.so.6: cannot open shared object file: No such file or directory\" >&2\nexit 127\n"
        for name in ["swift", "swiftc"] {
            let file = folder.appendingPathComponent(name)
            try Data(loader.utf8).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
        }
        let run = try await Self.bash("set -eu; source scripts/toolchain.sh; echo reached", environment: ["SWIFT_TOOLCHAIN_DIRS": folder.path])
        #expect(run.exitCode == 1)
        #expect(!run.output.contains("reached"))
        #expect(run.output.contains("error: found a Swift toolchain, but it cannot start:"))
        #expect(run.output.contains("\(folder.path)/swift --version: \(folder.path)/swift: error while loading shared libraries: libncurses.so.6"))
        #expect(!run.output.contains("no Swift toolchain found"))
    }

    @Test func noToolchainAtAllSaysWhereItLooked() async throws {
        let run = try await Self.bash("set -eu; source scripts/toolchain.sh", environment: ["SWIFT_TOOLCHAIN_DIRS": "/nonexistent/swift/bin"])
        #expect(run.exitCode == 1)
        #expect(run.output.contains("error: no Swift toolchain found in /nonexistent/swift/bin or on PATH"))
    }

    @Test func theComparisonScriptSaysWhenTheSharedBenchIsAbsent() async throws {
        let run = try await Self.bash("scripts/check-placements.sh", environment: ["MCLOUD_BENCH_DIR": "/nonexistent/bench"])
        #expect(run.exitCode == 1)
        #expect(run.output.contains("check-placements: the shared benchmark is not here: no /nonexistent/bench/check.py"))
        #expect(run.output.contains("Nothing was checked."))
    }

    /// Regression: `scripts/chaos.sh --help` installed packages and started all four test beds (minutes) before the
    /// harness read its arguments; the usage is now the first and only thing it prints.
    @Test(arguments: ["--help", "-h"])
    func theChaosHarnessAnswersHelpWithoutStartingABed(_ flag: String) async throws {
        let run = try await Self.bash("scripts/chaos.sh \(flag)")
        #expect(run.exitCode == 0)
        #expect(run.output.hasPrefix("usage: chaos.py"))
        #expect(run.output.contains("--kills KILLS"))
        #expect(!run.output.contains("testbed"))
    }

    /// The README's commands install exactly these groups (examples.sh build; test.sh build and test), and .ci/run
    /// installs nothing of its own, so CI cannot have a package the README's commands lack.
    @Test(arguments: [
        ("build", ["libyaml-dev", "libcurl4-openssl-dev", "libssl-dev", "libpq-dev", "zlib1g-dev", "pkg-config", "graphviz", "age"]),
        ("test", ["python3", "openssl", "ca-certificates", "chromium", "age", "python3-cryptography", "python3-yaml", "prometheus", "clickhouse-client"]),
        ("python", ["python3", "python3-venv"]),
    ])
    func eachInstallGroupNamesItsPackages(_ group: String, _ packages: [String]) async throws {
        let run = try await Self.bash("scripts/install-deps.sh --list \(group)")
        #expect(run.exitCode == 0)
        #expect(run.output.split(separator: "\n").map(String.init) == packages)
    }

    /// The chaos harness plans the real catalog with the beds' endpoints (scripts/testbed/beds-catalog.yaml replaces
    /// each cloud's `endpoints`). When Providers/ gained `clusterSet`, the beds' copy did not, and every chaos run
    /// stopped at the plan: the retail bank's payments-api could not reach fx-rates. What wiring reads from a
    /// cluster's endpoints (its egress ranges and cluster set) must be the catalog's.
    @Test func theBedsCatalogKeepsEachClustersEgressRangesAndClusterSet() throws {
        func wiring(_ line: Substring) -> String {
            let fields = ["egressCIDRs: \\[[^]]*\\]", "clusterSet: [a-z0-9-]+"].compactMap { pattern in
                line.range(of: pattern, options: .regularExpression).map { String(line[$0]) }
            }
            return fields.joined(separator: ", ")
        }
        var catalog: [String: String] = [:]
        let providers = Self.root + "/Providers"
        for file in try FileManager.default.contentsOfDirectory(atPath: providers).filter({ $0.hasSuffix(".yaml") }) {
            var cloud = ""
            for line in try String(contentsOfFile: providers + "/" + file, encoding: .utf8).split(separator: "\n") {
                if let name = line.range(of: "(?<=metadata: \\{ name: )[a-z0-9-]+", options: .regularExpression) { cloud = String(line[name]) }
                if line.hasPrefix("    kubernetes: {") { catalog[cloud] = wiring(line) }
            }
        }
        var beds: [String: String] = [:]
        var cloud = ""
        for line in try String(contentsOfFile: Self.root + "/scripts/testbed/beds-catalog.yaml", encoding: .utf8).split(separator: "\n") {
            if let first = line.first, first.isLetter { cloud = String(line.dropLast()) }
            if line.hasPrefix("  kubernetes: {") { beds[cloud] = wiring(line) }
        }
        #expect(!catalog.isEmpty)
        #expect(beds == catalog)
    }

    @Test func ciInstallsNothingTheReadmesCommandsDoNot() throws {
        let ci = try String(contentsOfFile: "\(Self.root)/.ci/run", encoding: .utf8)
        #expect(!ci.contains("apt-get"), ".ci/run installs packages itself")
        #expect(ci.contains("\nscripts/test.sh\n"))
        let test = try String(contentsOfFile: "\(Self.root)/scripts/test.sh", encoding: .utf8)
        #expect(test.contains("scripts/install-deps.sh build test\n"))
        let examples = try String(contentsOfFile: "\(Self.root)/scripts/examples.sh", encoding: .utf8)
        #expect(examples.contains("scripts/install-deps.sh build\n"))
    }
}
