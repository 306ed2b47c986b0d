import Foundation
import MCloudCore
import MCloudManifest
import MCloudPlanner

// Benchmarks that print tables; nothing here asserts a time.
//   swift run -c release mcloud-bench validate [DOCUMENTS]     validation throughput (default 10,000 documents)
//   swift run -c release mcloud-bench plan DIR... [--out DIR] [--budget STEPS]  planner cost against each instance's reference.json

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "plan":
    PlannerBenchmark.run(Array(arguments.dropFirst()))
case "validate":
    ValidationBenchmark.run(documents: arguments.dropFirst().first.flatMap { Int($0) } ?? 10_000)
case nil:
    ValidationBenchmark.run(documents: 10_000)
default:
    print("usage: mcloud-bench validate [DOCUMENTS] | plan DIR... [--out DIR]")
    exit(1)
}
