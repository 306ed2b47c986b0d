import Foundation
import MCloudOpenStack
import MCloudCore
import MCloudHTTP

/// Boots N servers with at most P in flight, each waited ACTIVE then deleted and waited gone, against an OpenStack
/// cloud (the test bed's by default: scripts/testbed/openstack.sh). Prints the wall time next to the sum of each
/// server's own create-to-gone time: with calls overlapping the sum is several times the wall time. Waits poll with
/// backoff (0.5 s, growing 1.5 times up to 5 s), so parallel waits do not flood the API.
enum OpenStackServersBenchmark {
    static func run(_ arguments: [String]) async {
        var servers = 20
        var parallelism = 10
        let bed = ProcessInfo.processInfo.environment["MCLOUD_OPENSTACK_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/openstack"
        var environment = ProcessInfo.processInfo.environment
        environment["OS_CLIENT_CONFIG_FILE"] = environment["OS_CLIENT_CONFIG_FILE"] ?? "\(bed)/clouds.yaml"
        var cloud = environment["OS_CLOUD"] ?? "mcloud"
        var index = 0
        while index + 1 < arguments.count {
            switch arguments[index] {
            case "--servers": servers = max(1, Int(arguments[index + 1]) ?? servers)
            case "--parallelism": parallelism = max(1, Int(arguments[index + 1]) ?? parallelism)
            case "--cloud": cloud = arguments[index + 1]
            default: break
            }
            index += 2
        }
        do {
            let session = try OpenStackSession(cloud: try CloudsYAML.load(cloud: cloud, environment: environment))
            let nova = NovaClient(session: session)
            let flavor = try await nova.smallestFlavor(vcpus: 1, ramMiB: 256)
            let images = try await session.json("image", .GET, "/v2/images?status=active&limit=1", operation: "find an image")
            guard let image = images["images"]?.arrayItems.first?["id"]?.stringValue else { throw OpenStackError.invalidResponse("the cloud has no active image") }
            let run = "bench-\(UUID().uuidString.prefix(8).lowercased())"
            let clock = ContinuousClock()
            let start = clock.now
            let durations = try await withThrowingTaskGroup(of: Double.self) { group in
                var collected: [Double] = []
                for number in 0..<servers {
                    if number >= parallelism, let done = try await group.next() { collected.append(done) }
                    group.addTask {
                        let began = clock.now
                        let request = ServerRequest(
                            name: "\(run)-\(number)", imageID: image, flavorID: flavor.id, marks: ResourceMarks(metadata: [.init("benchmark", run)], tags: ["benchmark:\(run)"]), networks: .none
                        )
                        let server = try await nova.createServer(request)
                        _ = try await nova.waitUntilActive(server.id)
                        try await nova.deleteServer(server.id)
                        let elapsed = clock.now - began
                        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                    }
                }
                for try await done in group { collected.append(done) }
                return collected
            }
            let elapsed = clock.now - start
            let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let sum = durations.reduce(0, +)
            var table = Table(header: ["servers", "parallelism", "wall s", "sum of waits s", "overlap", "mean s", "slowest s"])
            table.rows.append([
                String(servers), String(parallelism), String(format: "%.1f", wall), String(format: "%.1f", sum), String(format: "%.1fx", sum / wall),
                String(format: "%.1f", sum / Double(servers)), String(format: "%.1f", durations.max() ?? 0),
            ])
            print(table.text)
        } catch {
            print("openstack-servers: \(error)")
            exit(1)
        }
    }
}
