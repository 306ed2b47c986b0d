import Foundation
import Testing

/// `show PLANFILE` prints exactly what `plan` printed, placement and cost included, because both draw the same
/// plan document; `show --json` is `plan --json`. Checked against the plan goldens, so a view that forgets part of a
/// saved plan fails here as well as there.
@Suite struct ShowCommandTests {
    @Test(arguments: ["retail-bank", "shop", "telemed"])
    func showOfASavedPlanEqualsPlansOutput(_ application: String) async throws {
        let file = NSTemporaryDirectory() + "mcloud-show-\(UUID().uuidString).plan"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let arguments = ["plan", "-f", "\(repositoryRoot)/Manifests/\(application)", "--providers", "\(repositoryRoot)/Providers", "--state", PlanCommandTests.noState]
        let planned = await mcloudRun(arguments + ["--out", file])
        #expect(planned.exitCode == 0)
        let saved = "\nSaved the plan to \(file). Apply exactly this with: mcloud apply \(file)\n"
        #expect(planned.stdout.hasSuffix(saved))

        let shown = await mcloudRun(["show", file])
        #expect(shown.exitCode == 0)
        #expect(shown.stdout + saved == planned.stdout)
        try Golden.check(shown.stdout, named: "plan-\(application).txt")

        // A saved plan is whole: every considered cloud and reason, as `plan --json --explain` prints them.
        let shownJSON = await mcloudRun(["show", "--json", file])
        let plannedJSON = await mcloudRun(arguments + ["--json", "--explain"])
        #expect(shownJSON.exitCode == 0 && shownJSON.stdout == plannedJSON.stdout)
    }

    /// Regression: saving a plan over an earlier one failed ("The file doesn't exist", FileManager.replaceItemAt on
    /// Linux) and deleted the earlier plan too.
    @Test func savingAPlanOverAnEarlierOneReplacesIt() async throws {
        let file = NSTemporaryDirectory() + "mcloud-resave-\(UUID().uuidString).plan"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data("an earlier plan".utf8).write(to: URL(fileURLWithPath: file))
        let planned = await mcloudRun(["plan", "--placement-only", "-f", "\(repositoryRoot)/Manifests/shop", "--providers", "\(repositoryRoot)/Providers", "--out", file])
        #expect(planned.exitCode == 0, "\(planned.stderr)")
        let shown = await mcloudRun(["show", file])
        #expect(shown.exitCode == 0)
        #expect(shown.stdout.hasPrefix("Placement of shop ("))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter { $0.hasPrefix("." + (file as NSString).lastPathComponent + ".tmp-") }
        #expect(leftovers.isEmpty)
    }

    /// Regression: a saved plan was world-readable (0644) and written through `PLAN.tmp-PID`, a name anyone able to
    /// write to the folder could guess and plant a symlink at, so the plan overwrote the file the link named.
    @Test func aSavedPlanIsTheOwnersAloneAndNeverWrittenThroughAPlantedLink() async throws {
        let folder = NSTemporaryDirectory() + "mcloud-saved-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (file, victim) = (folder + "/shop.plan", folder + "/victim")
        try Data("untouched".utf8).write(to: URL(fileURLWithPath: victim))
        let planted = file + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
        try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: victim)
        let planned = await mcloudRun(["plan", "--placement-only", "-f", "\(repositoryRoot)/Manifests/shop", "--providers", "\(repositoryRoot)/Providers", "--out", file])
        #expect(planned.exitCode == 0, "\(planned.stderr)")
        #expect(FileManager.default.contents(atPath: victim) == Data("untouched".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["shop.plan", "shop.plan.tmp-\(ProcessInfo.processInfo.processIdentifier)", "victim"])
    }
}
