import Foundation
import MCloudCore
import MCloudHTTP
@testable import MCloudKubernetes
import Testing

/// `mcloud status` against the real kube-apiserver of the test bed. The bed runs no controllers, so the test writes
/// each Deployment's status through the status subresource, as the Deployment controller would.
@Suite(.serialized) struct StatusBedTests {
    /// Writes `api`'s and `web`'s status: every replica updated, `ready` of `api`'s ready (all when nil).
    static func report(_ workspace: EngineWorkspace, apiReady: Int?) async throws {
        let client = try workspace.client()
        for (name, replicas) in [("api", 3), ("web", 2)] {
            let reference = ObjectReference(apiVersion: "apps/v1", kind: "Deployment", namespace: workspace.namespace, name: name)
            let live = try #require(try await client.get(reference))
            let generation = live.value(at: ["metadata", "generation"])?.intValue ?? 1
            let ready = name == "api" ? apiReady ?? replicas : replicas
            let status = #"{"status": {"observedGeneration": \#(generation), "replicas": \#(replicas), "updatedReplicas": \#(replicas), "readyReplicas": \#(ready), "availableReplicas": \#(ready)}}"#
            let path = "/apis/apps/v1/namespaces/\(workspace.namespace)/deployments/\(name)/status"
            let response = try await client.send(.PATCH, path, body: Array(status.utf8), contentType: "application/merge-patch+json", operation: "status of \(name)")
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        }
    }

    /// status's own 30-second default bounds a cloud's answer; under the whole suite's load the bed may take longer.
    static let patient = ["--timeout", "600"]

    @Test func aDeploymentWithFewerReadyReplicasIsDegradedAndExitsTwoThenHealthyOnceAllAreReady() async throws {
        let workspace = try EngineWorkspace()
        let applied = await workspace.run("apply", ["--auto-approve"])
        #expect(applied.exitCode == 0, "\(applied.stderr)")

        let fresh = await workspace.run("status", Self.patient + ["--detailed-exitcode"])
        #expect(fresh.exitCode == 2, "no controller has reported yet: \(fresh.stdout)\(fresh.stderr)")
        #expect(fresh.stdout.contains("Progressing"), "\(fresh.stdout)")

        try await Self.report(workspace, apiReady: 1)
        let degraded = await workspace.run("status", Self.patient + ["--detailed-exitcode"])
        #expect(degraded.exitCode == 2, "\(degraded.stdout)\(degraded.stderr)")
        #expect(degraded.stdout.hasPrefix("Application \(workspace.application): Degraded (api@eu in lab: 1 of 3 replicas ready)\n"), "\(degraded.stdout)")
        let json = try JSONParser.parse(Array(await workspace.run("status", Self.patient + ["--json", "api@eu"]).stdout.utf8))
        let site = json["cells"]?.arrayItems.first?["sites"]?.arrayItems.first
        #expect(site?["replicas"]?["ready"]?.intValue == 1)
        #expect(site?["replicas"]?["desired"]?.intValue == 3)

        try await Self.report(workspace, apiReady: nil)
        let healthy = await workspace.run("status", Self.patient + ["--detailed-exitcode"])
        #expect(healthy.exitCode == 0, "\(healthy.stdout)\(healthy.stderr)")
        #expect(healthy.stdout.hasPrefix("Application \(workspace.application): Healthy\n"), "\(healthy.stdout)")

        let destroyed = await workspace.run("destroy", ["--auto-approve"])
        #expect(destroyed.exitCode == 0, "\(destroyed.stderr)")
    }

    /// Ctrl-C or SIGTERM ends `status --watch` with exit 0 (it has nothing to put back, so not 128 plus the signal as
    /// an interrupted apply), also while it waits between readings.
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalEndsAWatchWithExitZero(_ number: Int32) async throws {
        let workspace = try EngineWorkspace()
        let applied = await workspace.run("apply", ["--auto-approve"])
        #expect(applied.exitCode == 0, "\(applied.stderr)")
        let watch = ["status", "--watch", "--interval", "1"] + Self.patient + workspace.common
        let run = try EngineEndToEndTests.start(watch) { $0.contains("Application \(workspace.application): ") }
        if run.process.isRunning { kill(run.process.processIdentifier, number) }
        let stderr = try await EngineEndToEndTests.finish(run)
        #expect(run.process.terminationReason == .exit && run.process.terminationStatus == 0, "\(stderr)")
        let destroyed = await workspace.run("destroy", ["--auto-approve"])
        #expect(destroyed.exitCode == 0, "\(destroyed.stderr)")
    }
}
