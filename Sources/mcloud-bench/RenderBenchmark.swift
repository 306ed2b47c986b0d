import Foundation
import MCloudCore
import MCloudRender

/// Rendering throughput: a synthetic application sized for the requested number of Kubernetes objects, each cell
/// placed on two clouds, rendered and written to YAML in memory five times. Prints objects per second of wall time
/// (the target is 100,000 in release) and per second of CPU time, which other load on the machine disturbs less.
enum RenderBenchmark {
    static func run(objects requested: Int) {
        let (model, placement) = workload(objects: requested)
        var table = Table(header: ["run", "objects", "resources", "files", "MiB", "seconds", "CPU seconds", "objects/s", "objects/CPU s"])
        var best = (wall: 0.0, cpu: 0.0)
        for run in 1...5 {
            let start = DispatchTime.now().uptimeNanoseconds
            let startCPU = cpuSeconds()
            let rendering = Rendering(model: model, placement: placement)
            let tree = rendering.tree
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let cpu = cpuSeconds() - startCPU
            let bytes = tree.files.reduce(0) { $0 + $1.contents.utf8.count }
            let rate = (wall: Double(rendering.objectCount) / seconds, cpu: Double(rendering.objectCount) / cpu)
            best = (max(best.wall, rate.wall), max(best.cpu, rate.cpu))
            table.rows.append([
                String(run), String(rendering.objectCount), String(rendering.resourceCount), String(tree.files.count),
                String(format: "%.1f", Double(bytes) / 1_048_576), String(format: "%.3f", seconds), String(format: "%.3f", cpu),
                String(format: "%.0f", rate.wall), String(format: "%.0f", rate.cpu),
            ])
        }
        print(table.text)
        print(String(format: "best %.0f Kubernetes objects/s built and written as YAML (target >= 100000 in release), %.0f per CPU second", best.wall, best.cpu))
    }

    /// CPU time of the whole process, every thread.
    private static func cpuSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Services in two audiences, each cell on two of ten clouds, each using one database and the next service:
    /// every cell gets a Deployment, Service, HPA, PDB, NetworkPolicy, ConfigMap, and every fourth an Ingress.
    private static func workload(objects: Int) -> (Model, Placement) {
        let location = SourceLocation(file: "<bench>", line: 0, column: 0)
        let audiences = ["ru", "eu"]
        // 6.25 objects per cell and cloud (the Ingress of every fourth service), two clouds per cell.
        let serviceCount = max(1, objects / (audiences.count * 2 * 6) + 1)
        let databaseCount = max(1, serviceCount / 4)
        let clouds = (0..<10).map { index in
            Cloud(
                name: "cloud-\(index)", vendor: "vendor-\(index % 4)", api: .openstack, jurisdiction: ["RU", "EU"], region: "region-\(index)",
                zones: ["a", "b"], offers: Cloud.Offers(kubernetes: true, vm: true, dbaas: index % 2 == 0 ? ["postgresql"] : [], objectStorage: true),
                capacity: Cloud.Capacity(vcpu: 100_000, memoryGiB: 400_000, storageGiB: 1_000_000), pricing: Cloud.Pricing(currency: "USD"),
                latencyMs: [:], endpoints: Cloud.Endpoints(), location: location
            )
        }
        let application = Application(
            name: "bench", currency: "USD", exchangeRates: [:],
            audiences: audiences.map { Application.Audience(name: $0, jurisdiction: $0.uppercased(), latencyMs: nil) },
            residency: [], availability: Availability(), portability: .strict, location: location
        )
        let databases = (0..<databaseCount).map { index in
            Database(
                name: "db-\(index)", labels: ["team": "data"], engine: "postgresql", version: "16", scope: .perAudience,
                size: Database.Size(vcpu: 2, memoryGiB: 8, storageGiB: 100), standbys: 1,
                backup: Database.Backup(schedule: "0 */6 * * *", retentionDays: 14, disasterRecovery: Database.DisasterRecovery(differentVendor: true)),
                location: location
            )
        }
        let services = (0..<serviceCount).map { index in
            Service(
                name: "service-\(index)", labels: ["team": "team-\(index % 7)"], image: "registry.example/service-\(index):1.0.\(index)",
                scope: .perAudience, replicas: 4,
                resources: Service.Resources(cpu: CPUQuantity(millicores: 500), memory: MemoryQuantity(bytes: 512 << 20), limitCPU: CPUQuantity(millicores: 1000)),
                ports: [Service.Port(name: "http", port: 8080)],
                dependsOn: [Service.Dependency(name: "db-\(index % databaseCount)", trafficGiBMonth: 10)]
                    + (index + 1 < serviceCount ? [Service.Dependency(name: "service-\(index + 1)", trafficGiBMonth: 1)] : []),
                expose: index % 4 == 0 ? Service.Expose(isPublic: true, path: "/service-\(index)") : nil,
                autoscale: Service.Autoscale(min: 2, max: 12, targetCPU: 70),
                env: [Service.EnvVar(name: "LOG_LEVEL", value: "info"), Service.EnvVar(name: "FEATURE_FLAGS", value: "a,b,c")],
                readinessProbe: Service.Probe(path: "/healthz", port: "http"), location: location
            )
        }
        let model = Model(application: application, clouds: clouds, services: services, databases: databases, cdns: [])
        var servicePlacement: [String: [(cloud: String, count: Int)]] = [:]
        var databasePlacement: [String: (primary: String, backup: String?)] = [:]
        for (index, service) in services.enumerated() {
            for audience in audiences {
                servicePlacement["\(service.name)@\(audience)"] = [(cloud: "cloud-\(index % 10)", count: 2), (cloud: "cloud-\((index + 3) % 10)", count: 2)]
            }
        }
        for (index, database) in databases.enumerated() {
            for audience in audiences {
                databasePlacement["\(database.name)@\(audience)"] = (primary: "cloud-\(index % 10)", backup: "cloud-\((index + 1) % 10)")
            }
        }
        return (model, Placement(services: servicePlacement, databases: databasePlacement, cdns: [:]))
    }
}
