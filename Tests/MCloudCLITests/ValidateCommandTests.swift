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

    @Test func threeApplicationsAtOnceAreRefusedWithAHint() async {
        let run = await mcloudRun(["validate", "-f", "\(repositoryRoot)/Manifests", "--providers", "\(repositoryRoot)/Providers"])
        #expect(run.exitCode == 1)
        #expect(run.stderr.contains("error: metadata.name: a second Application \"shop\""))
    }

    @Test func aMissingPathIsAnErrorNamingIt() async {
        let run = await mcloudRun(["validate", "-f", "/nonexistent/manifests", "--providers", "\(repositoryRoot)/Providers"])
        #expect(run.exitCode == 1)
        #expect(run.stderr.hasPrefix("/nonexistent/manifests: error: no such file or directory\nerror: no Application manifest found"))
    }

    /// The real binary: bad input ends with exit code 1 and diagnostics, never a crash or a backtrace.
    @Test func theBinaryExitsWithOneOnBadInput() throws {
        let binary = try #require(Bundle.main.executableURL).deletingLastPathComponent().appendingPathComponent("mcloud")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the mcloud product first")
        let process = Process()
        process.executableURL = binary
        process.arguments = ["validate", "-f", "\(fixtures)/broken-service.yaml", "--providers", "\(repositoryRoot)/Providers"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(output.contains("broken-service.yaml:3:19: error: metadata.name"))
        #expect(!output.contains("Fatal error"))
    }
}
