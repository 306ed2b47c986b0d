import Foundation
import MCloudCore
import MCloudManifest

/// Validation throughput: generates manifests in memory, validates them five times, prints a table.
enum ValidationBenchmark {
    static func run(documents requested: Int) {
        let cloudCount = 10
        let databaseCount = max(1, requested / 5)
        let serviceCount = max(1, requested - cloudCount - databaseCount - 1)

        func cloud(_ index: Int) -> String {
            """
            apiVersion: mcloud/v1
            kind: Cloud
            metadata: { name: cloud-\(index) }
            spec:
              vendor: vendor-\(index % 4)
              api: openstack
              jurisdiction: [\(index % 2 == 0 ? "RU" : "EU")]
              region: region-\(index)
              zones: [a, b]
              offers: { kubernetes: true, vm: true, dbaas: [postgresql], objectStorage: true, cdn: { pops: [RU, EU] } }
              capacity: { vcpu: 4096, memoryGiB: 16384, storageGiB: 100000 }
              pricing: { currency: RUB, vcpuHour: 1.2, memoryGiBHour: 0.4, storageGiBMonth: 8, objectStorageGiBMonth: 2, egressGiB: 1.5, cdnGiB: 1 }
              latencyMs: { ru: 12, eu: 55 }
            """
        }

        let application = """
            apiVersion: mcloud/v1
            kind: Application
            metadata: { name: bench }
            spec:
              currency: USD
              exchangeRates: { RUB: 0.011 }
              audiences:
                - { name: ru, jurisdiction: RU, latencyMs: 50 }
                - { name: eu, jurisdiction: EU, latencyMs: 60 }
              residency:
                - { data: personal, audience: ru, allowed: [RU], law: 152-FZ }
                - { data: personal, audience: eu, allowed: [EU], law: GDPR }
              availability: { minClouds: 2, maxShare: 0.67 }
              portability: strict
            """

        func database(_ index: Int) -> String {
            """
            apiVersion: mcloud/v1
            kind: Database
            metadata: { name: db-\(index) }
            spec:
              engine: postgresql
              version: "15"
              scope: perAudience
              size: { vcpu: 4, memoryGiB: 16, storageGiB: 500 }
              data: [personal]
              standbys: 1
              backup:
                schedule: "0 */6 * * *"
                retentionDays: 14
                disasterRecovery: { differentVendor: true, changeGiBDay: 20 }
            """
        }

        func service(_ index: Int) -> String {
            """
            apiVersion: mcloud/v1
            kind: Service
            metadata: { name: svc-\(index) }
            spec:
              image: registry.example/svc-\(index):1.0.\(index)
              scope: perAudience
              replicas: 4
              resources: { cpu: 500m, memory: 512Mi }
              ports: [{ name: http, port: 8080 }]
              data: [personal]
              dependsOn:
                - { name: db-\(index % databaseCount), trafficGiBMonth: 200 }
              expose: { public: \(index % 3 == 0), path: /svc-\(index) }
              autoscale: { min: 2, max: 20, targetCPU: 70 }
              env: { LOG_LEVEL: info }
            """
        }

        let documents = (0..<cloudCount).map(cloud) + [application] + (0..<databaseCount).map(database) + (0..<serviceCount).map(service)
        let perFile = 100
        let sources = stride(from: 0, to: documents.count, by: perFile).map { start in
            let text = documents[start..<min(start + perFile, documents.count)].joined(separator: "\n---\n")
            return ManifestLoader.Source(file: "bench/\(start / perFile).yaml", bytes: Array(text.utf8))
        }
        let bytes = sources.reduce(0) { $0 + $1.bytes.count }

        var timings: [Double] = []
        var result: ManifestSet?
        for _ in 0..<5 {
            let start = DispatchTime.now().uptimeNanoseconds
            result = ManifestLoader.load(sources)
            timings.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        guard let result, result.model != nil else {
            print("validation failed:")
            result?.diagnostics.prefix(10).forEach { print($0) }
            exit(1)
        }
        timings.sort()
        var table = Table(header: ["documents", "files", "MiB", "best s", "median s", "documents/s"])
        table.rows.append([
            String(result.documentCount), String(sources.count), String(format: "%.2f", Double(bytes) / 1_048_576),
            String(format: "%.3f", timings[0]), String(format: "%.3f", timings[timings.count / 2]),
            String(format: "%.0f", Double(result.documentCount) / timings[timings.count / 2]),
        ])
        print(table.text)
    }
}
