import Foundation
import MCloudTestSupport
import Testing
@testable import MCloudDatabaseEngines

/// The hostile renderings of `HostileUserDataTests`, given to Debian 12's own cloud-init (the container bed): its
/// schema accepts every one, and a booted instance runs no `bootcmd` smuggled in through a bucket key. Fails, never
/// skips, without the bed.
struct HostileUserDataBedTests {
    @Test func cloudInitsSchemaAcceptsEveryHostileRendering() async throws {
        let documents = HostileUserDataTests.Site.allCases.flatMap { site in
            HostileUserDataTests.LineBreak.allCases.enumerated().map { index, lineBreak in
                (name: "\(site.rawValue)-\(index)", text: DatabaseUserData.render(HostileUserDataTests.vm(site, lineBreak)))
            }
        }
        try await SchemaBedTests.expectValid(documents)
    }

    /// `bootcmd` runs before `write_files` in Debian's cloud.cfg, so once the first file is on disk a smuggled
    /// `bootcmd` would have left its marker: the instance is not waited for (its engine would install for minutes).
    @Test func aBootedInstanceRunsNoCommandFromABucketKey() async throws {
        let bed = try ContainerBed.load()
        let name = "hostile-key-\(UUID().uuidString.prefix(6).lowercased())"
        let vm = HostileUserDataTests.vm(.recoveryPointKey, .lineSeparator)
        let written = try #require(DatabaseUserData.files(vm).first?.path)
        try await bed.boot(name, userData: DatabaseUserData.render(vm))
        var failure: (any Error)?
        do {
            var seen = false
            for _ in 0..<300 where !seen {
                seen = try await bed.exec(name, ["test", "-e", written]).succeeded
                if !seen { try await Task.sleep(for: .seconds(1)) }
            }
            #expect(seen, "cloud-init wrote no \(written) within 300 s")
            let marker = try await bed.exec(name, ["test", "-e", HostileUserDataTests.markerPath])
            #expect(!marker.succeeded, "the bucket key's bootcmd ran: \(HostileUserDataTests.markerPath) exists")
            let read = try await bed.exec(name, ["cat", "/var/lib/cloud/instance/user-data.txt"])
            #expect(read.stdout.contains("20991231T235959Z"), "the instance did not read the hostile user data")
        } catch {
            failure = error
        }
        await bed.destroy(name)
        if let failure { throw failure }
    }
}
