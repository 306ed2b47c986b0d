import Foundation
import MCloudCore
import MCloudDatabaseEngines
import MCloudManifest
import MCloudPlanner
import MCloudViews

/// Plans each bench instance (a folder with Providers/, Manifests/ and reference.json) and compares the cost with
/// the reference: the proven optimum, the best known placement, or a naive greedy's; and the plan's lower bound
/// (gap: how far above it the cost is, as a share of the cost) with the reference's own bound where it has one.
/// With `--check PYTHON CHECK.PY` each placement goes to the independent checker and its verdict is a column. With
/// `--out DIR` it writes each placement in the checker's normalized form, for `check.py INSTANCE DIR/NAME.json`.
/// Peak MiB is the process's peak resident memory so far, so run one instance alone to read its own.
enum PlannerBenchmark {
    struct Reference: Decodable {
        var kind: String
        var cost: Double
        var bound: Double?
    }

    static func run(_ arguments: [String]) {
        var directories: [String] = []
        var output: String?
        var checker: (python: String, script: String)?
        // The search alone: explanations are text for people, built after it and timed by `mcloud plan` itself.
        var options = Planner.Options(explanations: .none)
        var index = 0
        while index < arguments.count {
            if arguments[index] == "--out", index + 1 < arguments.count {
                output = arguments[index + 1]
                index += 2
            } else if arguments[index] == "--check", index + 2 < arguments.count {
                checker = (arguments[index + 1], arguments[index + 2])
                index += 3
            } else if arguments[index] == "--bound-evaluations", index + 1 < arguments.count {
                options.boundEvaluations = Int(arguments[index + 1])
                index += 2
            } else if arguments[index] == "--budget", index + 1 < arguments.count {
                options.budget = Int(arguments[index + 1])
                index += 2
            } else {
                directories.append(arguments[index])
                index += 1
            }
        }
        var table = Table(header: [
            "instance", "cells", "cost", "reference", "kind", "ratio", "target", "bound", "gap", "ref bound", "bound/ref", "steps", "seconds", "cpu s",
            "peak MiB", "checker",
        ])
        var missed = 0
        var notes: [String] = []
        for directory in directories {
            let name = URL(fileURLWithPath: directory).lastPathComponent
            // The references solve docs/planner.md's problem, where a standby is capacity and cost only (StandbyRule).
            let set = ManifestLoader.load(paths: [directory + "/Manifests"], providers: directory + "/Providers", standbyRule: .capacityOnly)
            guard let model = set.model else {
                print("\(name): invalid input")
                set.diagnostics.prefix(5).forEach { print($0) }
                continue
            }
            let start = DispatchTime.now().uptimeNanoseconds
            let cpuStart = ResourceUsage.cpuSeconds()
            let result = Planner.plan(model, options: options)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let cpuSeconds = ResourceUsage.cpuSeconds() - cpuStart
            guard case .success(let plan) = result else {
                if case .failure(let failure) = result { print("\(name): \(failure)") }
                continue
            }
            let undeliverable = Self.standbysThatCannotReplicate(plan, model)
            if undeliverable > 0 {
                notes.append("\(name): \(undeliverable) database cell(s) placed with standbys on VMs that cannot replicate yet, which mcloud plan places elsewhere or refuses")
            }
            let reference = (try? Data(contentsOf: URL(fileURLWithPath: directory + "/reference.json")))
                .flatMap { try? JSONDecoder().decode(Reference.self, from: $0) }
            let ratio = reference.map { plan.cost.monthly / $0.cost }
            let target = reference.map { $0.kind == "greedy-only" ? 0.98 : 1.01 }
            if let ratio, let target, ratio > target { missed += 1 }
            var verdict = "-"
            let file = URL(fileURLWithPath: output ?? NSTemporaryDirectory()).appendingPathComponent("\(name).json")
            if output != nil || checker != nil {
                try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                // The checker's normalized form: the placement with its cost as a plain number.
                var placement = PlacementReport(plan).placementJSON.objectPairs.filter { $0.0 != "cost" }
                placement.append(("cost", .rounded(plan.cost.monthly)))
                try? Data(JSONValue.object(placement).serialized().utf8).write(to: file)
            }
            if let checker {
                verdict = Self.check(python: checker.python, script: checker.script, instance: directory, placement: file.path)
                if verdict != "feasible" { missed += 1 }
            }
            table.rows.append([
                name, String(model.cells.count), String(format: "%.2f", plan.cost.monthly),
                reference.map { String(format: "%.2f", $0.cost) } ?? "-", reference?.kind ?? "-",
                ratio.map { String(format: "%.4f", $0) } ?? "-", target.map { String(format: "<= %.2f", $0) } ?? "-",
                String(format: "%.2f", plan.cost.lowerBound), String(format: "%.2f%%", plan.cost.gap * 100),
                reference?.bound.map { String(format: "%.2f", $0) } ?? "-",
                reference?.bound.map { String(format: "%.4f", plan.cost.lowerBound / $0) } ?? "-",
                String(plan.steps), String(format: "%.2f", seconds), String(format: "%.2f", cpuSeconds),
                String(format: "%.0f", ResourceUsage.peakMiB()), verdict,
            ])
        }
        print(table.text)
        notes.forEach { print($0) }
        print(missed == 0 ? "all instances within target" : "\(missed) instance(s) above target or rejected by the checker")
    }

    /// Database cells the placement puts on VMs with standbys their recipe cannot replicate to: what planner.md allows
    /// and mcloud's own rule (`StandbyRule.mustReplicate`) does not.
    static func standbysThatCannotReplicate(_ plan: PlacementPlan, _ model: Model) -> Int {
        let databases = Dictionary(model.databases.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return plan.databases.filter { placed in
            let name = placed.cell.split(separator: "@").first.map(String.init) ?? placed.cell
            guard let database = databases[name], database.standbys > 0, let cloud = clouds[placed.primary], !database.runsManaged(on: cloud) else { return false }
            let recipe = ImageFamily(rawValue: cloud.vmImage.family).flatMap { EngineCatalog.recipe(engine: database.engine, version: database.version, family: $0) }
            return recipe?.replicates != true
        }.count
    }

    /// The independent checker's last line: `feasible`, or `INFEASIBLE: n violation(s)`.
    static func check(python: String, script: String, instance: String, placement: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, instance, placement, "--quiet", "--strict-cost"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return "checker did not start"
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.split(separator: "\n").last.map(String.init) ?? "no verdict"
    }
}
