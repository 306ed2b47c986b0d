import Foundation
import Testing

/// `mcloud plan --lose CLOUD` and `--lose-vendor VENDOR`: the what-if on the planner's hand-made instances and the
/// bundled retail bank, human and JSON, and its exit codes.
@Suite struct WhatIfCommandTests {
    static let fixtures = "\(repositoryRoot)/Tests/MCloudPlannerTests/Fixtures/what-if"

    static func plan(_ instance: String, _ arguments: [String]) async -> Run {
        await mcloudRun(["plan", "-f", "\(fixtures)/\(instance)/Manifests", "--providers", "\(fixtures)/\(instance)/Providers"] + arguments)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var instance: String
        var lose: [String]
        var exitCode: Int32
        var stderr: String
        var testDescription: String { "\(instance) losing \(lose.joined(separator: ", "))" }
    }

    static let cases = [
        Case(instance: "moves", lose: ["--lose", "ru-cheap"], exitCode: 2, stderr: ""),
        Case(instance: "residency", lose: ["--lose", "ru-1"], exitCode: 1, stderr: "error: 1 cell cannot be placed without ru-1\n"),
        Case(instance: "third-vendor", lose: ["--lose", "sel-1"], exitCode: 2, stderr: ""),
        Case(instance: "third-vendor", lose: ["--lose-vendor", "vk"], exitCode: 2, stderr: ""),
    ]

    @Test(arguments: cases)
    func theWhatIfPrintsItsGoldenHumanAndJSONViews(_ example: Case) async throws {
        let name = "what-if-\(example.instance)-\(example.lose[1])"
        let human = await Self.plan(example.instance, example.lose + ["--detailed-exitcode", "--explain"])
        #expect(human.exitCode == example.exitCode)
        #expect(human.stderr == example.stderr)
        try Golden.check(human.stdout, named: "\(name).txt")
        let json = await Self.plan(example.instance, example.lose + ["--detailed-exitcode", "--json"])
        #expect(json.exitCode == example.exitCode)
        try Golden.check(json.stdout, named: "\(name).json")
        let again = await Self.plan(example.instance, example.lose + ["--json"])
        #expect(again.stdout == json.stdout)
    }

    @Test func withoutDetailedExitCodeAMoveStillExitsZero() async {
        let run = await Self.plan("moves", ["--lose", "ru-cheap"])
        #expect(run.exitCode == 0)
    }

    @Test func losingTheRetailBanksVKCloudMovesEveryDRLegToCloudRu() async throws {
        let run = await mcloudRun(["plan", "--lose", "vk-msk", "-f", "\(repositoryRoot)/Manifests/retail-bank", "--providers", "\(repositoryRoot)/Providers"])
        #expect(run.exitCode == 0)
        #expect(run.stderr == "")
        try Golden.check(run.stdout, named: "what-if-retail-bank-vk-msk.txt")
    }

    @Test(arguments: [
        (["--lose", "vk-mks"], "error: --lose: no cloud named 'vk-mks'; did you mean 'vk-msk'?\n"),
        (["--lose-vendor", "selectl"], "error: --lose-vendor: no cloud of vendor 'selectl'; did you mean 'selectel'?\n"),
    ])
    func anUnknownCloudOrVendorIsAnErrorWithTheNearestName(_ arguments: [String], _ message: String) async {
        let run = await mcloudRun(["plan"] + arguments + ["-f", "\(repositoryRoot)/Manifests/retail-bank", "--providers", "\(repositoryRoot)/Providers"])
        #expect(run.exitCode == 1)
        #expect(run.stdout == "")
        #expect(run.stderr == message)
    }

    @Test(arguments: [["--out", "plan.json"], ["--target", "kubernetes"], ["--no-refresh"], ["--state", "file:///tmp/state.json"]])
    func aWhatIfTakesNoStateOrCloudOption(_ option: [String]) async {
        let run = await mcloudRun(["plan", "--lose", "vk-msk"] + option)
        #expect(run.exitCode == 1)
        #expect(run.stderr.hasPrefix("error: \(option[0]) does not go with --lose or --lose-vendor: a what-if places only, without the state or the clouds\n"))
    }
}
