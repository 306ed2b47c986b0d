import Foundation
import Testing

/// A `dependsOn` edge that cannot be wired fails the plan before anything is read or written, naming the edge in
/// its cluster and why (docs/connectivity.md), where the retail bank's services used to get names that reached nothing.
@Suite struct WiringPlanTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// What is taken out of the bundled catalog.
        var removed: String
        /// The error lines and the summary, with `FOLDER` for the catalog's folder and `ROOT` for the checkout.
        var stderr: [String]
        var testDescription: String { name }
    }

    static func unexposed(_ cluster: String, dependent: String) -> String {
        "error: \(dependent)@\(cluster) -> fx-rates: fx-rates runs only in ps-ala, sel-msk and nothing exposes it outside them: it is not public and none of them shares a cluster set with \(cluster): set endpoints.kubernetes.clusterSet on \(cluster) and one of them in the catalog if their clusters share Multi-Cluster Services, or expose.public: true on fx-rates (ROOT/Manifests/retail-bank/services.yaml:214:9) so that \(cluster) reaches it through its Ingress"
    }

    static func noEgress(_ dependent: String, _ database: String) -> String {
        "error: \(dependent)@aws-irl -> \(database): the database runs in gcore-lux, another cloud, and aws-irl names no endpoints.kubernetes.egressCIDRs in its catalog entry (FOLDER/aws.yaml:36:19), so the engine could admit nobody from this cluster: list the addresses the cluster's traffic leaves from there"
    }

    @Test(arguments: [
        // The global fx-rates is not public and runs in neither EU cluster nor sel-spb.
        Case(name: "clusters in no cluster set", removed: ", clusterSet: examples", stderr: [
            unexposed("aws-irl", dependent: "payments-api@eu"), unexposed("gcore-lux", dependent: "payments-api@eu"),
            unexposed("sel-spb", dependent: "payments-api@ru"), "3 dependsOn edges that cannot be wired; nothing was planned",
        ]),
        // The EU databases run in gcore-lux; their services in aws-irl could be admitted from nowhere.
        Case(name: "aws-irl without egress addresses", removed: ", egressCIDRs: [203.0.113.16/28]", stderr: [
            noEgress("accounts@eu", "accounts-db@eu"), noEgress("cards@eu", "cards-db@eu"), noEgress("fraud-scoring@eu", "payments-db@eu"),
            noEgress("notifications@eu", "accounts-db@eu"), noEgress("payments-api@eu", "accounts-db@eu"), noEgress("payments-api@eu", "payments-db@eu"),
            noEgress("web@eu", "sessions-redis@eu"), "7 dependsOn edges that cannot be wired; nothing was planned",
        ]),
    ])
    func anEdgeThatCannotBeWiredFailsThePlanNamingItAndWritesNothing(_ test: Case) async throws {
        let folder = NSTemporaryDirectory() + "mcloud-wiring-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for file in try FileManager.default.contentsOfDirectory(atPath: "\(repositoryRoot)/Providers") where file.hasSuffix(".yaml") {
            let text = try String(contentsOfFile: "\(repositoryRoot)/Providers/\(file)", encoding: .utf8)
            try text.replacingOccurrences(of: test.removed, with: "").write(toFile: "\(folder)/\(file)", atomically: true, encoding: .utf8)
        }
        let run = await mcloudRun([
            "plan", "-f", "\(repositoryRoot)/Manifests/retail-bank", "--providers", folder, "--state", "file://\(folder)/state/state.json",
            "--out", "\(folder)/plan.json",
        ], environment: ["NO_COLOR": "1", "HOME": folder])
        #expect(run.exitCode == 1)
        #expect(run.stdout == "")
        let expected = test.stderr.map { $0.replacingOccurrences(of: "FOLDER", with: folder).replacingOccurrences(of: "ROOT", with: repositoryRoot) }
        #expect(run.stderr == expected.joined(separator: "\n") + "\n")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/state"))
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/plan.json"))
    }
}
