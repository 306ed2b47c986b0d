import Foundation
import MCloudTestSupport
import Testing

/// The network bed's script on a state folder of its own: start is idempotent, status says started, half and stopped
/// by its exit code, stop leaves no namespace holder, and every malformed argument is refused with the reason and
/// exit 1 before anything is made.
@Suite(.serialized) struct NetworkBedScriptTests {
    static let script = ScriptTests.root + "/scripts/testbed/network.sh"

    static func network(_ arguments: [String], state: String) async throws -> Command {
        try await Command.run(script, arguments, environment: ["MCLOUD_TESTBED_NETWORK_DIR": state])
    }

    static func holder(_ name: String, state: String) async throws -> String {
        try await network(["pid", name], state: state).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether `pid` is still a holder (a killed one may linger as a zombie, with no command line and no namespace).
    static func holds(_ pid: String) -> Bool {
        (FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")).map { String(decoding: $0, as: UTF8.self).hasPrefix("mcloud-network-hold") } ?? false
    }

    @Test func startIsIdempotentStatusFollowsTheHoldersAndStopLeavesNothing() async throws {
        let state = NSTemporaryDirectory() + "mcloud-network-\(UUID().uuidString.prefix(8))"
        defer { for path in [state, state + ".lock"] { try? FileManager.default.removeItem(atPath: path) } }
        #expect(try await Self.network(["status"], state: state).exitCode == 3)
        let first = try await Self.network(["start"], state: state)
        #expect(first.succeeded && first.stdout.contains("MCLOUD_TEST_NETWORK_BED=\(Self.script)"), "\(first.output)")
        let again = try await Self.network(["start"], state: state)
        #expect(again.succeeded && again.stderr.contains("already started"), "\(again.output)")
        let added = try await Self.network(["add-cloud", "alpha", "--subnet", "10.9.0.0/24", "--public", "198.18.250.0/28"], state: state)
        #expect(added.succeeded, "\(added.output)")
        let status = try await Self.network(["status"], state: state)
        #expect(status.exitCode == 0 && status.stdout.contains("alpha: subnet 10.9.0.0/24, public 198.18.250.0/28, egress 198.18.250.1"), "\(status.output)")
        let holders = [try await Self.holder("internet", state: state), try await Self.holder("operator", state: state)]
        #expect(holders.allSatisfy(Self.holds))
        _ = try await Command.run("/bin/kill", ["-KILL", try await Self.holder("alpha", state: state)])
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await Self.network(["status"], state: state).exitCode == 1, "a cloud whose namespace is gone makes the bed half")
        #expect(try await Self.network(["stop"], state: state).succeeded)
        #expect(try await Self.network(["status"], state: state).exitCode == 3)
        try await Task.sleep(for: .milliseconds(200))
        #expect(!holders.contains(where: Self.holds), "no holder of the bed is left: \(holders)")
    }

    /// Tests add clouds at the same moment: each gets a link of its own (two once picked the same link number).
    @Test func cloudsAddedAtOnceEachGetALinkOfTheirOwn() async throws {
        let state = NSTemporaryDirectory() + "mcloud-network-\(UUID().uuidString.prefix(8))"
        defer { for path in [state, state + ".lock"] { try? FileManager.default.removeItem(atPath: path) } }
        #expect(try await Self.network(["start"], state: state).succeeded)
        let added = try await withThrowingTaskGroup(of: Command.self) { group in
            for index in 0..<6 {
                group.addTask { try await Self.network(["add-cloud", "c\(index)", "--subnet", "10.9.0.0/24", "--public", "198.18.250.\(index * 16)/28"], state: state) }
            }
            return try await group.reduce(into: [Command]()) { $0.append($1) }
        }
        let failed = added.filter { !$0.succeeded }.map(\.output)
        #expect(failed.isEmpty, "\(failed)")
        let status = try await Self.network(["status"], state: state)
        #expect(status.exitCode == 0 && (0..<6).allSatisfy { status.stdout.contains("c\($0): subnet 10.9.0.0/24") }, "\(status.output)")
        #expect(try await Self.network(["stop"], state: state).succeeded)
    }

    @Test(arguments: [
        (["add-cloud", "Alpha", "--subnet", "10.9.0.0/24", "--public", "198.18.250.0/28"], "cloud 'Alpha': lower-case letters"),
        (["add-cloud", "alpha", "--subnet", "10.9.0.1/24", "--public", "198.18.250.0/28"], "--subnet 10.9.0.1/24: host bits are set (the network is 10.9.0.0/24)"),
        (["add-cloud", "alpha", "--subnet", "10.9.0.0/31", "--public", "198.18.250.0/28"], "--subnet 10.9.0.0/31: the prefix must be 8 to 30"),
        (["add-cloud", "alpha", "--subnet", "10.9.0.0/24", "--public", "300.18.250.0/28"], "--public 300.18.250.0/28: 300.18.250.0 is no IPv4 address"),
        (["add-cloud", "alpha", "--subnet", "10.9.0.0/16", "--public", "10.9.1.0/28"], "--subnet 10.9.0.0/16 and --public 10.9.1.0/28 overlap"),
        (["add-cloud", "alpha", "--subnet", "100.127.0.0/24", "--public", "198.18.250.0/28"], "100.127.0.0/16 is the bed's links"),
        (["add-cloud", "operator", "--subnet", "10.9.0.0/24", "--public", "198.18.250.0/28"], "cloud 'operator': the name is the bed's own"),
        (["add-cloud", "alpha", "--subnet", "10.9.0.0/24"], "--subnet CIDR and --public CIDR are required"),
        (["attach", "nowhere", "1", "10.9.0.5"], "no cloud nowhere"),
        (["attach", "nowhere", "999999999", "10.9.0.5"], "attach: no process 999999999"),
        (["cut", "nowhere"], "no cloud nowhere"),
        (["exec", "nowhere", "--", "true"], "no cloud nowhere"),
    ])
    func malformedArgumentsAreRefusedWithTheirReason(arguments: [String], message: String) async throws {
        let state = NSTemporaryDirectory() + "mcloud-network-\(UUID().uuidString.prefix(8))"
        defer { for path in [state, state + ".lock"] { try? FileManager.default.removeItem(atPath: path) } }
        #expect(try await Self.network(["start"], state: state).succeeded)
        let result = try await Self.network(arguments, state: state)
        #expect(result.exitCode == 1 && result.stderr.contains(message), "\(arguments): \(result.output)")
        let status = try await Self.network(["status"], state: state)
        #expect(status.exitCode == 0 && !status.stdout.contains("alpha") && !status.stdout.contains("operator:"), "nothing was made: \(status.output)")
        #expect(try await Self.network(["stop"], state: state).succeeded)
    }
}
