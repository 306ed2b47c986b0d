import Foundation
import Testing

@Suite struct ValidateCommandTests {
    @Test(arguments: [
        ("retail-bank", "Valid: 9 clouds, application retail-bank, 8 services, 5 databases, 2 CDNs, 1 policy with 6 rules; 24 cells in 11 files.\n"),
        ("shop", "Valid: 9 clouds, application shop, 5 services, 2 databases, 1 CDN; 7 cells in 10 files.\n"),
        ("telemed", "Valid: 9 clouds, application telemed, 9 services, 3 databases, 1 CDN; 21 cells in 10 files.\n"),
    ])
    func everyBundledExampleIsValid(_ application: String, _ summary: String) async {
        let run = await mcloudRun(["validate", "-f", "\(repositoryRoot)/Manifests/\(application)", "--providers", "\(repositoryRoot)/Providers"])
        #expect(run.stderr == "")
        #expect(run.stdout == summary)
        #expect(run.exitCode == 0)
    }

    /// Diagnostics of a few broken files, with paths relative to the fixtures so the goldens travel.
    @Test(arguments: [
        (["broken-service.yaml"], "diagnostics-broken-service.txt"),
        (["broken-application.yaml"], "diagnostics-broken-application.txt"),
        (["tabs.yaml"], "diagnostics-tabs.txt"),
    ])
    func brokenManifestsGetEveryProblemWithItsPosition(_ files: [String], _ golden: String) async throws {
        let arguments = ["validate"] + files.flatMap { ["-f", "\(fixtures)/\($0)"] } + ["--providers", "\(repositoryRoot)/Providers"]
        let run = await mcloudRun(arguments)
        #expect(run.exitCode == 1)
        #expect(run.stdout == "")
        let relative = run.stderr.replacingOccurrences(of: fixtures + "/", with: "").replacingOccurrences(of: repositoryRoot + "/", with: "")
        try Golden.check(relative, named: golden)
    }

    /// Regression: at the repository root, `mcloud validate` (default -f Manifests/) failed on the bundled examples
    /// with "a second Application".
    @Test func validateAtTheRepositoryRootChecksEachExampleOnItsOwn() async throws {
        let run = try await runBinary(["validate"], in: repositoryRoot)
        #expect(run.stderr == "")
        #expect(run.stdout == """
            Manifests/retail-bank: Valid: 9 clouds, application retail-bank, 8 services, 5 databases, 2 CDNs, 1 policy with 6 rules; 24 cells in 11 files.
            Manifests/shop: Valid: 9 clouds, application shop, 5 services, 2 databases, 1 CDN; 7 cells in 10 files.
            Manifests/telemed: Valid: 9 clouds, application telemed, 9 services, 3 databases, 1 CDN; 21 cells in 10 files.

            """)
        #expect(run.exitCode == 0)
    }

    /// One broken application among several fails the run and names its folder; the others are still checked.
    @Test func aBrokenApplicationAmongSeveralFailsAloneWithItsFolder() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-applications-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        for application in ["shop", "telemed"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(application), withIntermediateDirectories: true)
            for file in ["application.yaml", "services.yaml", "databases.yaml", "cdn.yaml"] {
                try FileManager.default.copyItem(
                    at: URL(fileURLWithPath: "\(repositoryRoot)/Manifests/\(application)/\(file)"), to: directory.appendingPathComponent("\(application)/\(file)")
                )
            }
        }
        let services = directory.appendingPathComponent("telemed/services.yaml")
        try String(contentsOf: services, encoding: .utf8).replacingOccurrences(of: "replicas: 3", with: "replicas: three").write(to: services, atomically: true, encoding: .utf8)
        let run = await mcloudRun(["validate", "-f", directory.path, "--providers", "\(repositoryRoot)/Providers"])
        #expect(run.exitCode == 1)
        #expect(run.stdout == "\(directory.path)/shop: Valid: 9 clouds, application shop, 5 services, 2 databases, 1 CDN; 7 cells in 10 files.\n")
        #expect(run.stderr.contains("telemed/services.yaml:"))
        #expect(run.stderr.contains("\(directory.path)/telemed: validate: "))
    }

    /// A plan still places exactly one application, and says how to point at one.
    @Test func planningSeveralApplicationsAtOnceIsRefusedWithAHint() async {
        let run = await mcloudRun(["plan", "-f", "\(repositoryRoot)/Manifests", "--providers", "\(repositoryRoot)/Providers"])
        #expect(run.exitCode == 1)
        #expect(run.stderr.contains("error: metadata.name: a second Application \"shop\""))
        #expect(run.stderr.contains("point -f at one application's folder"))
    }

    /// Regression: two applications as two -f paths were each valid to validate, and plan then refused them with
    /// errors about one application's audiences and data classes checked against the other.
    @Test func twoApplicationsAsTwoPathsAreRefusedAsPlanRefusesThem() async {
        let arguments = ["-f", "\(repositoryRoot)/Manifests/shop", "-f", "\(repositoryRoot)/Manifests/telemed", "--providers", "\(repositoryRoot)/Providers"]
        let validate = await mcloudRun(["validate"] + arguments)
        let plan = await mcloudRun(["plan"] + arguments)
        let refusal = "\(repositoryRoot)/Manifests/telemed/application.yaml:21:9: error: metadata.name: a second Application \"telemed\"; a plan has exactly one, and \"shop\" is defined at \(repositoryRoot)/Manifests/shop/application.yaml:17:9; point -f at one application's folder"
        #expect(validate.exitCode == 1)
        #expect(validate.stdout == "")
        #expect(validate.stderr == refusal + "\nvalidate: 1 error, 0 warnings\n")
        #expect(plan.exitCode == 1)
        #expect(plan.stderr.hasPrefix(refusal + "\n"))
        #expect(plan.stderr.components(separatedBy: "\n").filter { $0.contains(": error: ") } == [refusal])
    }

    @Test func aMissingPathIsAnErrorNamingIt() async {
        let run = await mcloudRun(["validate", "-f", "/nonexistent/manifests", "--providers", "\(repositoryRoot)/Providers"])
        #expect(run.exitCode == 1)
        #expect(run.stderr.hasPrefix("/nonexistent/manifests: error: no such file or directory\nerror: no Application manifest found"))
    }

    /// The real binary: bad input ends with exit code 1 and diagnostics, never a crash or a backtrace.
    @Test func theBinaryExitsWithOneOnBadInput() async throws {
        let run = try await runBinary(["validate", "-f", "\(fixtures)/broken-service.yaml", "--providers", "\(repositoryRoot)/Providers"], in: repositoryRoot)
        let output = run.stderr
        #expect(run.exitCode == 1)
        #expect(output.contains("broken-service.yaml:3:19: error: metadata.name"))
        #expect(!output.contains("Fatal error"))
    }
}
