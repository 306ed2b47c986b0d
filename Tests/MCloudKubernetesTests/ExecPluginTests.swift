import Foundation
import MCloudHTTP
import Testing
@testable import MCloudKubernetes

/// An exec credential plugin runs with the state lock held, so whatever it does, mcloud must come back: a plugin that
/// writes much to stderr, one that never ends, one that prints without end (docs/security.md, M3).
@Suite struct ExecPluginTests {
    static let credential = #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"t0ken"}}"#

    static func plugin(_ body: String, timeout: Double = ExecCredentialPlugin.defaultTimeout) throws -> ExecCredentialPlugin {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-exec-\(UUID().uuidString).sh")
        try Data("\(body)\n".utf8).write(to: script)
        // Run by sh rather than executed: a file just written can still be open for writing in a child another test
        // forked meanwhile, and exec of it then fails with ETXTBSY ("could not start", seen in a full run).
        let config = Kubeconfig.ExecConfig(apiVersion: "client.authentication.k8s.io/v1", command: "/bin/sh", args: [script.path], env: [:], installHint: nil)
        return ExecCredentialPlugin(config: config, environment: ["PATH": "/usr/bin:/bin"], timeout: timeout)
    }

    /// Before, stdout was read to its end first: the plugin blocked on a full stderr pipe (64 KiB) and mcloud
    /// waited for it forever.
    @Test(.timeLimit(.minutes(1)))
    func aPluginThatWritesMuchToStderrStillGivesItsCredential() async throws {
        let plugin = try Self.plugin("head -c 300000 /dev/zero | tr '\\0' x >&2\nprintf '%s' '\(Self.credential)'")
        #expect(try await plugin.refresh().token == "t0ken")
    }

    @Test(.timeLimit(.minutes(1)))
    func aPluginThatNeverEndsIsStoppedAfterItsTimeout() async throws {
        let plugin = try Self.plugin("exec sleep 300", timeout: 1)
        let started = ContinuousClock.now
        await #expect {
            try await plugin.refresh()
        } throws: { error in
            "\(error)".contains("did not finish within 1 s and was stopped")
        }
        // Stopped, not waited for: far from the plugin's 300 s, with room for a loaded machine (11 s were seen with
        // the whole suite on 2 cores, where a bound of 10 s failed).
        #expect(ContinuousClock.now - started < .seconds(40))
    }

    @Test(.timeLimit(.minutes(1)))
    func aPluginThatPrintsMoreThanACredentialIsRefused() async throws {
        let plugin = try Self.plugin("head -c 3000000 /dev/zero | tr '\\0' x")
        await #expect {
            try await plugin.refresh()
        } throws: { error in
            "\(error)".contains("printed 3000000 bytes, more than")
        }
    }

    @Test func aServerMessageWithEscapeCodesIsPrintedEscaped() {
        let status = APIStatus(operation: "get ns", code: 403, reason: "Forbidden", message: "no\u{1B}[31m\rAll good", causes: [])
        #expect(KubernetesError.api(status).description == #"get ns: 403 Forbidden: no\u{1B}[31m\u{D}All good"#)
    }
}
