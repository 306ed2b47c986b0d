import Foundation
import MCloudCore
import MCloudHTTP
import MCloudKubernetes
import MCloudProvider
import MCloudState
import MCloudTestSupport
import Testing

/// plan, apply and destroy against the real kube-apiserver of the test bed, with the file state backend.
@Suite(.serialized) struct EngineEndToEndTests {
    @Test func applyReplanChangeDriftAndDestroy() async throws {
        let workspace = try EngineWorkspace()
        let first = await workspace.run("apply", ["--auto-approve"])
        #expect(first.exitCode == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Apply complete! Resources: 11 added, 0 changed, 0 replaced, 0 destroyed."))
        #expect(try await workspace.listed("apps/v1", "Deployment") == ["api", "web"])

        let again = await workspace.run("plan", ["--detailed-exitcode"])
        #expect(again.exitCode == 0, "\(again.stdout)\(again.stderr)")
        #expect(again.stdout.contains("No changes. The clouds match the manifests: 11 resources up to date."))

        try workspace.edit("replicas: 3", "replicas: 4")
        let planFile = "\(workspace.folder)/change.plan"
        let changed = await workspace.run("plan", ["--detailed-exitcode", "--out", planFile])
        #expect(changed.exitCode == 2, "\(changed.stderr)")
        #expect(changed.stdout.contains("~ kubernetes.lab.apps/v1.Deployment.\(workspace.namespace).api  (changed in the manifests)"))
        #expect(changed.stdout.contains("~ spec.replicas: 3 -> 4"))
        #expect(changed.stdout.contains("api@eu: lab 3 -> 4"))
        let shown = await mcloudRun(["show", "--json", planFile])
        #expect(shown.stdout.contains("\"action\": \"update\""))
        let applied = await workspace.run("apply", [planFile])
        #expect(applied.exitCode == 0, "\(applied.stderr)")
        #expect(applied.stdout.contains("Apply complete! Resources: 0 added, 1 changed, 0 replaced, 0 destroyed."))
        let stale = await workspace.run("apply", [planFile])
        #expect(stale.exitCode == 1)
        #expect(stale.stderr.contains("stale plan"), "\(stale.stderr)")

        // Behind mcloud's back: a Service deleted, a Deployment scaled.
        let client = try workspace.client()
        try await client.delete(ObjectReference(apiVersion: "v1", kind: "Service", namespace: workspace.namespace, name: "web"))
        try await Self.scale(workspace, "web", to: 7)
        let drift = await workspace.run("plan", ["--detailed-exitcode"])
        #expect(drift.exitCode == 2)
        #expect(drift.stdout.contains("+ kubernetes.lab.v1.Service.\(workspace.namespace).web  (deleted outside mcloud; creating it again)"))
        #expect(drift.stdout.contains("! spec.replicas changed outside mcloud"))
        #expect(drift.stdout.contains("~ spec.replicas: 7 -> 2"))
        let restored = await workspace.run("apply", ["--auto-approve"])
        #expect(restored.exitCode == 0, "\(restored.stderr)")
        #expect(try await workspace.listed("v1", "Service") == ["api", "web"])
        let web = try await client.get(ObjectReference(apiVersion: "apps/v1", kind: "Deployment", namespace: workspace.namespace, name: "web"))
        #expect(web?.value(at: ["spec", "replicas"]) == .int(2))
        #expect(await workspace.run("plan", ["--detailed-exitcode"]).exitCode == 0)

        let destroyed = await workspace.run("destroy", ["--auto-approve"])
        #expect(destroyed.exitCode == 0, "\(destroyed.stderr)")
        #expect(destroyed.stdout.contains("Destroy complete! Resources: 0 added, 0 changed, 0 replaced, 11 destroyed."))
        for (apiVersion, kind) in [("apps/v1", "Deployment"), ("v1", "Service"), ("networking.k8s.io/v1", "NetworkPolicy"), ("networking.k8s.io/v1", "Ingress")] {
            #expect(try await workspace.listed(apiVersion, kind).isEmpty, "\(kind) left behind")
        }
        let state = try #require(try FileStateBackend(path: workspace.statePath).read())
        #expect(state.resources.isEmpty)
        #expect(await workspace.run("state", ["list"]).stdout.isEmpty)
    }

    /// Apply records the placement it made and its cost; a price change alone changes no resource but the cost the
    /// next plan shows against that record, and the apply of that plan records the new cost; destroy clears it.
    @Test func applyRecordsThePlacementAndItsCostForTheNextPlansCostDiff() async throws {
        let workspace = try EngineWorkspace()
        let backend = FileStateBackend(path: workspace.statePath)
        // A targeted apply makes part of the placement: it records none.
        let part = await workspace.run("apply", ["--auto-approve", "--target", "kubernetes.lab.v1.Namespace"])
        #expect(part.exitCode == 0, "\(part.stderr)")
        #expect(try backend.read()?.resources.count == 1)
        #expect(try backend.read()?.placement == nil)
        #expect(await workspace.run("apply", ["--auto-approve"]).exitCode == 0)
        let applied = try #require(try backend.read())
        // 730 h x (2 x (0.1 vCPU x 0.02 + 0.125 GiB x 0.005) + 3 x (0.25 x 0.02 + 0.25 x 0.005)) EUR
        #expect(applied.placement?.cost == AppliedPlacement.Cost(
            currency: "EUR", monthly: 17.52, byCloud: ["lab": 17.52], byCell: ["api@eu": 13.6875, "web@eu": 3.8325], byCDN: [:]
        ))
        #expect(applied.placement?.cells == ["api@eu": .replicas(["lab": 3]), "web@eu": .replicas(["lab": 2])])

        try workspace.editCatalog("vcpuHour: 0.02", "vcpuHour: 0.04")
        let repriced = await workspace.run("plan", ["--detailed-exitcode"])
        #expect(repriced.exitCode == 0, "\(repriced.stdout)\(repriced.stderr)")
        #expect(repriced.stdout.contains("Monthly cost against the last apply (EUR): 17.52 -> 31.39, +13.87 (+79.17%)\n"))
        #expect(repriced.stdout.contains("  api@eu   13.69  24.64  +10.95\n"), "\(repriced.stdout)")
        let recorded = await workspace.run("apply", ["--auto-approve"])
        #expect(recorded.exitCode == 0, "\(recorded.stderr)")
        let after = try #require(try backend.read())
        #expect(after.serial == applied.serial + 1)
        #expect(after.placement?.cost.monthly == 31.39)
        #expect(after.resources == applied.resources)
        let steady = await workspace.run("plan")
        #expect(steady.stdout.contains("Monthly cost against the last apply (EUR): 31.39 -> 31.39, 0.00 (0.00%)\n"))

        #expect(await workspace.run("destroy", ["--auto-approve"]).exitCode == 0)
        #expect(try backend.read()?.placement == nil)
    }

    @Test func applyAsksForYesAndAnythingElseChangesNothing() async throws {
        let workspace = try EngineWorkspace()
        let refused = await workspace.run("apply", [], input: ["no"])
        #expect(refused.exitCode == 1)
        #expect(refused.stderr.contains("Cancelled"))
        #expect(try await workspace.listed("apps/v1", "Deployment").isEmpty)
        let noInput = await workspace.run("apply")
        #expect(noInput.exitCode == 1 && noInput.stderr.contains("--auto-approve"))
        let accepted = await workspace.run("apply", [], input: ["yes"])
        #expect(accepted.exitCode == 0, "\(accepted.stderr)")
        // Another application against this state would delete everything the first one made: refused.
        try workspace.edit("name: \(workspace.application) }", "name: other-app }")
        let foreign = await workspace.run("plan")
        #expect(foreign.exitCode == 1 && foreign.stderr.contains("belongs to application \(workspace.application)"), "\(foreign.stderr)")
        try workspace.edit("name: other-app }", "name: \(workspace.application) }")
        #expect(await workspace.run("destroy", ["--auto-approve"]).exitCode == 0)
    }

    @Test func aSecondApplyFailsFastNamingTheLockHolder() async throws {
        let workspace = try EngineWorkspace()
        let backend = FileStateBackend(path: workspace.statePath)
        let held = try backend.lock(operation: "apply")
        let blocked = await workspace.run("apply", ["--auto-approve"])
        #expect(blocked.exitCode == 1)
        #expect(blocked.stderr.contains(held.id) && blocked.stderr.contains("apply"), "\(blocked.stderr)")
        #expect(try await workspace.listed("apps/v1", "Deployment").isEmpty)
        let unlocked = await workspace.run("state", ["force-unlock", held.id])
        #expect(unlocked.exitCode == 0, "\(unlocked.stderr)")
        #expect(await workspace.run("apply", ["--auto-approve"]).exitCode == 0)
        #expect(await workspace.run("destroy", ["--auto-approve"]).exitCode == 0)
    }

    /// The team backend: a lock held by another connection (another pipeline) stops apply at once, naming it.
    @Test func aSecondApplyFailsFastNamingTheHolderOnPostgres() async throws {
        let base = try TestBedEnvironment.load(directory: "/tmp/mcloud-testbed/postgres", start: "scripts/testbed/postgres.sh start")["MCLOUD_TEST_POSTGRES_URL"]
        let workspace = try EngineWorkspace()
        let url = "\(base)?workspace=\(workspace.application)"
        let holder = try PostgresStateBackend(url: url)
        let held = try holder.lock(operation: "apply")
        let started = ContinuousClock.now
        let blocked = await mcloudRun(["apply", "--auto-approve", "-f", "\(workspace.folder)/app", "--providers", "\(workspace.folder)/providers", "--state", url])
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(blocked.exitCode == 1)
        #expect(blocked.stderr.contains(held.id), "\(blocked.stderr)")
        #expect(!blocked.stderr.contains(base.split(separator: ":")[2].split(separator: "@")[0]), "the password leaked")
        #expect(try await workspace.listed("apps/v1", "Deployment").isEmpty)
        try holder.unlock(id: held.id)
        let arguments = ["-f", "\(workspace.folder)/app", "--providers", "\(workspace.folder)/providers", "--state", url]
        let applied = await mcloudRun(["apply", "--auto-approve"] + arguments)
        #expect(applied.exitCode == 0, "\(applied.stderr)")
        #expect(await mcloudRun(["plan", "--detailed-exitcode"] + arguments).exitCode == 0)
        #expect(try holder.read()?.resources.count == 11)
        #expect(await mcloudRun(["destroy", "--auto-approve"] + arguments).exitCode == 0)
        #expect(try holder.read()?.resources.isEmpty == true)
    }

    /// A secret-looking env value reaches the cluster but never the plan file, the output or the state.
    @Test func secretsReachTheClusterButNotThePlanOrTheState() async throws {
        let workspace = try EngineWorkspace()
        try workspace.edit("env: { LOG_LEVEL: info }", "env: { LOG_LEVEL: info, DB_PASSWORD: not-for-your-eyes-42 }")
        let planFile = "\(workspace.folder)/secret.plan"
        let planned = await workspace.run("plan", ["--out", planFile, "--json"])
        #expect(planned.exitCode == 0, "\(planned.stderr)")
        let saved = try String(contentsOfFile: planFile, encoding: .utf8)
        #expect(!saved.contains("not-for-your-eyes-42") && !planned.stdout.contains("not-for-your-eyes-42"))
        #expect(saved.contains("(sensitive value)"))
        let applied = await workspace.run("apply", [planFile])
        #expect(applied.exitCode == 0, "\(applied.stderr)")
        #expect(!applied.stdout.contains("not-for-your-eyes-42"))
        let api = try await workspace.client().get(ObjectReference(apiVersion: "apps/v1", kind: "Deployment", namespace: workspace.namespace, name: "api"))
        #expect(api.map { $0.serialized(pretty: false).contains("not-for-your-eyes-42") } == true, "the cluster did not get the real value")
        #expect(!(try String(contentsOfFile: workspace.statePath, encoding: .utf8)).contains("not-for-your-eyes-42"))
        #expect(await workspace.run("plan", ["--detailed-exitcode"]).exitCode == 0)
        #expect(await workspace.run("destroy", ["--auto-approve"]).exitCode == 0)
    }

    /// What an autoscaler does to the replicas it owns is not drift: no plan fights it.
    @Test func replicasChangedByTheAutoscalerAreNotDrift() async throws {
        let workspace = try EngineWorkspace()
        try workspace.edit("  replicas: 2\n", "  replicas: 2\n  autoscale: { min: 2, max: 6, targetCPU: 70 }\n")
        let applied = await workspace.run("apply", ["--auto-approve"])
        #expect(applied.exitCode == 0, "\(applied.stderr)")
        #expect(applied.stdout.contains("HorizontalPodAutoscaler"))
        try await Self.scale(workspace, "web", to: 5)
        let plan = await workspace.run("plan", ["--detailed-exitcode"])
        #expect(plan.exitCode == 0, "\(plan.stdout)")
        // A Deployment no autoscaler owns is still watched.
        try await Self.scale(workspace, "api", to: 9)
        #expect(await workspace.run("plan", ["--detailed-exitcode"]).exitCode == 2)
        #expect(await workspace.run("destroy", ["--auto-approve"]).exitCode == 0)
    }

    @Test func aCorruptedStateIsRefusedAndLeftUntouched() async throws {
        let workspace = try EngineWorkspace()
        let damaged = Data("{\"format_version\": 1, \"lineage\": ".utf8)
        try damaged.write(to: URL(fileURLWithPath: workspace.statePath))
        for command in ["plan", "apply"] {
            let run = await workspace.run(command, ["--auto-approve"].filter { _ in command == "apply" })
            #expect(run.exitCode == 1)
            #expect(run.stderr.contains(workspace.statePath), "\(run.stderr)")
            #expect(FileManager.default.contents(atPath: workspace.statePath) == damaged)
        }
        let newer = Data("{\"format_version\": 7}".utf8)
        try newer.write(to: URL(fileURLWithPath: workspace.statePath))
        let run = await workspace.run("plan")
        #expect(run.exitCode == 1 && run.stderr.contains("newer"), "\(run.stderr)")
        #expect(FileManager.default.contents(atPath: workspace.statePath) == newer)
    }

    /// SIGKILL in the middle of an apply, then apply again: everything exists once, the state lists exactly it.
    @Test func anApplyKilledMidwayConvergesOnTheNextRun() async throws {
        let workspace = try EngineWorkspace(services: 8)
        let run = try Self.start(["apply", "--auto-approve", "--parallelism", "1"] + workspace.common) { $0.components(separatedBy: "Creation complete").count > 6 }
        let process = run.process
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        #expect(process.terminationReason == .uncaughtSignal, "the apply finished before it could be killed")

        let recorded = try #require(try FileStateBackend(path: workspace.statePath).read())
        #expect(recorded.resources.count >= 5 && recorded.resources.count < 40, "\(recorded.resources.count)")
        let lock = try #require(FileManager.default.contents(atPath: workspace.statePath + ".lock"))
        let lockID = try #require(try JSONParser.parse(Array(lock))["id"]?.stringValue)
        let blocked = await workspace.run("apply", ["--auto-approve"])
        #expect(blocked.exitCode == 1 && blocked.stderr.contains(lockID))
        #expect(await workspace.run("state", ["force-unlock", lockID]).exitCode == 0)

        let resumed = await workspace.run("apply", ["--auto-approve"])
        #expect(resumed.exitCode == 0, "\(resumed.stderr)")
        let state = try #require(try FileStateBackend(path: workspace.statePath).read())
        let deployments = try await workspace.listed("apps/v1", "Deployment")
        #expect(deployments == (["api", "web"] + (0..<8).map { "worker-\($0)" }).sorted())
        #expect(state.resources.filter { $0.address.rawValue.contains(".Deployment.") }.count == deployments.count)
        #expect(try await workspace.listed("v1", "Service").count == state.resources.filter { $0.address.rawValue.contains(".v1.Service.") }.count)
        #expect(await workspace.run("plan", ["--detailed-exitcode"]).exitCode == 0)
        #expect(await workspace.run("destroy", ["--auto-approve"]).exitCode == 0)
    }

    /// The first Ctrl-C, or SIGTERM (what `timeout`, a cancelled CI job and Kubernetes send), lets what runs finish
    /// and starts nothing new; the state and the lock are left clean, exit 1, and the next apply finishes the job.
    @Test(arguments: [SIGINT, SIGTERM])
    func theFirstSignalStopsGracefullyAndTheNextApplyFinishes(_ number: Int32) async throws {
        let workspace = try EngineWorkspace(services: 8)
        let run = try Self.start(["apply", "--auto-approve", "--parallelism", "1"] + workspace.common) { $0.contains("complete after") }
        if run.process.isRunning { kill(run.process.processIdentifier, number) }
        let stderr = try await Self.finish(run)
        #expect(run.process.terminationReason == .exit && run.process.terminationStatus == 1, "\(stderr)")
        #expect(stderr.contains("\(Self.name(number)) received: waiting for the changes in progress") && stderr.contains("Apply stopped"), "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: workspace.statePath + ".lock"), "the lock was left behind")
        #expect(try FileStateBackend(path: workspace.statePath).read()?.resources.isEmpty == false)
        let finished = await workspace.run("apply", ["--auto-approve"])
        #expect(finished.exitCode == 0, "\(finished.stderr)")
        #expect(await workspace.run("plan", ["--detailed-exitcode"]).exitCode == 0)
        #expect(await workspace.run("destroy", ["--auto-approve"]).exitCode == 0)
    }

    /// A delete held by a finalizer keeps reporting that it is still running; the first signal waits for it, the
    /// second exits at once (128 plus the signal's number, as a shell reports it) and releases the lock.
    @Test(arguments: [SIGINT, SIGTERM])
    func aSecondSignalExitsAtOnceDuringASlowChange(_ number: Int32) async throws {
        let workspace = try EngineWorkspace()
        #expect(await workspace.run("apply", ["--auto-approve"]).exitCode == 0)
        try await Self.patch(workspace, "api", #"{"metadata":{"finalizers":["example.com/hold"]}}"#)
        let run = try Self.start(["destroy", "--auto-approve", "--parallelism", "1"] + workspace.common, environment: ["MCLOUD_PROGRESS_INTERVAL": "0.2"]) {
            $0.contains("Deployment.\(workspace.namespace).api: Still destroying")
        }
        if run.process.isRunning { kill(run.process.processIdentifier, number) }
        try await Task.sleep(for: .milliseconds(500))
        #expect(run.process.isRunning, "the first signal must wait for the change in progress")
        if run.process.isRunning { kill(run.process.processIdentifier, number) }
        let stderr = try await Self.finish(run)
        #expect(run.process.terminationStatus == 128 + number, "\(stderr)")
        #expect(stderr.contains("\(Self.name(number)) received") && stderr.contains("Second \(number == SIGINT ? "interrupt" : "SIGTERM"): exiting now"), "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: workspace.statePath + ".lock"), "the lock was left behind")
        try await Self.patch(workspace, "api", #"{"metadata":{"finalizers":null}}"#)
        let destroyed = await workspace.run("destroy", ["--auto-approve"])
        #expect(destroyed.exitCode == 0, "\(destroyed.stderr)")
        #expect(try await workspace.listed("apps/v1", "Deployment").isEmpty)
    }

    /// How mcloud names a signal in its messages.
    static func name(_ number: Int32) -> String { number == SIGINT ? "Interrupt" : "SIGTERM" }

    /// Before any change (here, waiting for "yes") SIGTERM and Ctrl-C stop at once, release the lock, change nothing.
    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalBeforeAnyChangeReleasesTheLockAndExits(_ number: Int32) async throws {
        let workspace = try EngineWorkspace()
        let input = Pipe()
        let run = try Self.start(["apply"] + workspace.common, input: input) { $0.contains("Enter a value:") }
        #expect(FileManager.default.fileExists(atPath: workspace.statePath + ".lock"))
        if run.process.isRunning { kill(run.process.processIdentifier, number) }
        let stderr = try await Self.finish(run)
        #expect(run.process.terminationStatus == 128 + number, "\(stderr)")
        #expect(stderr.contains("received before any change: nothing was changed. Apply stopped; the state lock is released."), "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: workspace.statePath + ".lock"), "the lock was left behind")
        #expect(try await workspace.listed("apps/v1", "Deployment").isEmpty)
        _ = input
    }

    /// The real binary, read until its output so far satisfies `done`.
    static func start(
        _ arguments: [String], environment: [String: String] = [:], input: Pipe? = nil, until done: (String) -> Bool
    ) throws -> (process: Process, errors: Pipe) {
        let process = Process()
        process.executableURL = try #require(Bundle.main.executableURL).deletingLastPathComponent().appendingPathComponent("mcloud")
        process.arguments = arguments
        process.environment = operatorAllowingTheBeds(ProcessInfo.processInfo.environment.merging(environment) { $1 })
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        if let input { process.standardInput = input }
        try process.run()
        var seen = ""
        while process.isRunning, !done(seen) {
            seen += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        }
        return (process, errors)
    }

    /// Waits for the process to end (polling: `waitUntilExit` can hang off the main run loop) and returns its stderr.
    static func finish(_ run: (process: Process, errors: Pipe)) async throws -> String {
        while run.process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        return String(decoding: run.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    static func patch(_ workspace: EngineWorkspace, _ deployment: String, _ body: String) async throws {
        let connection = try workspace.client().connection
        let request = HTTPRequest(
            method: .PATCH, url: "\(connection.server)/apis/apps/v1/namespaces/\(workspace.namespace)/deployments/\(deployment)?fieldManager=kubectl",
            headers: [("Content-Type", "application/merge-patch+json"), ("Accept", "application/json")], body: Array(body.utf8)
        )
        let response = try await CurlTransport(tls: connection.tls).send(request)
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
    }

    /// An edit made outside mcloud, as `kubectl scale` makes it: a merge patch by another field manager.
    static func scale(_ workspace: EngineWorkspace, _ name: String, to replicas: Int) async throws {
        try await patch(workspace, name, #"{"spec":{"replicas":\#(replicas)}}"#)
    }
}
