import Foundation
import MCloudCore
import MCloudManifest
import MCloudPlanner
import MCloudSynthetic

/// Plans a generated input far larger than the bench instances: 200 clouds, 5,000 service cells and 800 database
/// cells by default, from `MCloudSynthetic`'s seeded generator so every run plans the same input. Prints the planning
/// time and the process's peak resident memory.
enum SyntheticBenchmark {
    typealias Size = SyntheticInstance.Size

    static func run(_ arguments: [String]) {
        var size = Size()
        var seed: UInt64 = 1
        var boundEvaluations: Int?
        var budget: Int?
        var index = 0
        while index + 1 < arguments.count {
            let value = Int(arguments[index + 1]) ?? 0
            switch arguments[index] {
            case "--clouds": size.clouds = max(8, value)
            case "--services": size.services = max(1, value)
            case "--databases": size.databases = max(1, value)
            case "--seed": seed = UInt64(max(0, value))
            case "--bound-evaluations": boundEvaluations = max(1, value)
            case "--budget": budget = max(1, value)
            default: break
            }
            index += 2
        }
        let documents = SyntheticInstance(size: size, seed: seed).documents
        let sources = documents.enumerated().map { ManifestLoader.Source(file: "synthetic/\($0.offset).yaml", bytes: Array($0.element.utf8)) }
        let set = ManifestLoader.load(sources)
        guard let model = set.model else {
            print("synthetic input is invalid:")
            set.diagnostics.filter { $0.severity == .error }.prefix(10).forEach { print($0) }
            exit(1)
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = ResourceUsage.cpuSeconds()
        let result = Planner.plan(model, options: Planner.Options(budget: budget, boundEvaluations: boundEvaluations))
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpuSeconds = ResourceUsage.cpuSeconds() - cpuStart
        var table = Table(header: ["clouds", "service cells", "database cells", "cost", "bound", "gap", "steps", "seconds", "cpu s", "peak MiB"])
        switch result {
        case .success(let plan):
            let services = model.cells.filter { $0.kind == .service }.count
            table.rows.append([
                String(model.clouds.count), String(services), String(model.cells.count - services),
                String(format: "%.2f", plan.cost.monthly), String(format: "%.2f", plan.cost.lowerBound),
                String(format: "%.2f%%", plan.cost.gap * 100), String(plan.steps), String(format: "%.2f", seconds),
                String(format: "%.2f", cpuSeconds), String(format: "%.0f", ResourceUsage.peakMiB()),
            ])
            print(table.text)
        case .failure(let failure):
            print("synthetic input has no placement: \(failure)")
            exit(1)
        }
    }
}

/// The process's own use of the machine, from getrusage.
enum ResourceUsage {
    #if os(Linux)
    private static let current = __rusage_who_t(RUSAGE_SELF.rawValue)
    /// ru_maxrss is in KiB on Linux, in bytes on Darwin.
    private static let maxrssUnit = 1024.0
    #else
    private static let current = RUSAGE_SELF
    private static let maxrssUnit = 1.0
    #endif

    /// Peak resident set size so far.
    static func peakMiB() -> Double {
        var usage = rusage()
        getrusage(current, &usage)
        return Double(usage.ru_maxrss) * maxrssUnit / 1_048_576
    }

    /// User plus system CPU time so far: unlike wall time, barely moved by other work on a shared machine.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(current, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
