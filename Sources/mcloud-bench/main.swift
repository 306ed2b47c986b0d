import Foundation
import MCloudCore
import MCloudManifest
import MCloudPlanner

// Benchmarks that print tables; nothing here asserts a time.
//   swift run -c release mcloud-bench validate [DOCUMENTS]     validation throughput (default 10,000 documents)
//   swift run -c release mcloud-bench plan DIR... [--out DIR] [--check PYTHON CHECK.PY] [--budget STEPS] [--bound-evaluations N]
//       planner cost and lower bound against each instance's reference.json
//   swift run -c release mcloud-bench render [OBJECTS]   rendering throughput (default 100,000 Kubernetes objects)
//   swift run -c release mcloud-bench kube-apply [--objects N] [--concurrency N] [--kubeconfig F] [--context C]
//       server-side applies N objects to a real API server (the test bed's by default): objects/s, peak memory
//   swift run -c release mcloud-bench engine-plan [RESOURCES] [--backend file|postgres] [--state URL] [--runs N]
//       plan --no-refresh over a state of N resources (default 10,000): read, desired, diff, plan JSON written and read
//   swift run -c release mcloud-bench refresh [--objects N] [--namespaces N]   refresh N objects from the test API server
//   swift run -c release mcloud-bench status [--cells N] [--namespaces N]   a status reading of N cells from the test API server
//   swift run -c release mcloud-bench synthetic [--clouds N] [--services N] [--databases N] [--seed N] [--budget STEPS] [--bound-evaluations N]
//       plans a generated input (default 200 clouds, 5,000 service and 800 database cells): time and peak memory
//   swift run -c release mcloud-bench openstack-servers [--servers N] [--parallelism N] [--cloud NAME]
//       creates and deletes N servers (default 20, 10 at once) on the OpenStack test bed: wall time vs the sum of waits
//   swift run -c release mcloud-bench generate --out DIR [--clouds N] [--services N] [--databases N] [--seed N]
//       writes the synthetic generator's instance to DIR (default 50 clouds, 500 cells) in the bench instances' layout
//   swift run -c release mcloud-bench database-vms [--engines postgresql,mysql,redis,clickhouse] [--rows N] [--parallel]
//       boots each Debian 12 engine in the container bed: seconds to ready, for a backup to moto, for a restore

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "plan":
    PlannerBenchmark.run(Array(arguments.dropFirst()))
case "synthetic":
    SyntheticBenchmark.run(Array(arguments.dropFirst()))
case "render":
    RenderBenchmark.run(objects: arguments.dropFirst().first.flatMap { Int($0) } ?? 100_000)
case "kube-apply":
    await KubeApplyBenchmark.run(Array(arguments.dropFirst()))
case "engine-plan":
    await EnginePlanBenchmark.run(Array(arguments.dropFirst()))
case "refresh":
    await RefreshBenchmark.run(Array(arguments.dropFirst()))
case "status":
    await StatusBenchmark.run(Array(arguments.dropFirst()))
case "generate":
    InstanceGenerator.run(Array(arguments.dropFirst()))
case "openstack-servers":
    await OpenStackServersBenchmark.run(Array(arguments.dropFirst()))
case "database-vms":
    await DatabaseVMBenchmark.run(Array(arguments.dropFirst()))
case "validate":
    ValidationBenchmark.run(documents: arguments.dropFirst().first.flatMap { Int($0) } ?? 10_000)
case nil:
    ValidationBenchmark.run(documents: 10_000)
default:
    print("usage: mcloud-bench validate [DOCUMENTS] | plan DIR... [--out DIR] [--budget STEPS] | synthetic [--clouds N] [--seed N] | render [OBJECTS] | kube-apply [--objects N] | engine-plan [RESOURCES] [--backend file|postgres] | refresh [--objects N] | status [--cells N] | openstack-servers [--servers N] [--parallelism N] | generate --out DIR [--clouds N] | database-vms [--engines LIST] [--rows N] [--parallel]")
    exit(1)
}
