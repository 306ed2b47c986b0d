import Foundation

/// The network bed (`scripts/testbed/network.sh`): clouds as network namespaces joined through an "internet", each
/// leaving it by its egress address, and an operator namespace. Read from the env file `start` writes; tests that
/// need it fail, never skip, without it.
public struct NetworkBed: Sendable {
    /// A cloud a test made: its private subnet and its public range, whose first address is its egress address.
    public struct Cloud: Sendable {
        public var name: String
        public var subnet: String
        public var publicRange: String

        /// The address its machines leave the cloud by, which an allow-list for this cloud names.
        public var egress: String { Self.address(in: publicRange, offset: 1) }

        /// The subnet's address `offset` hosts from its start (1 is the gateway).
        public func privateAddress(_ offset: Int) -> String { Self.address(in: subnet, offset: offset) }
        /// The public range's address `offset` hosts from its start (1 is the egress address).
        public func publicAddress(_ offset: Int) -> String { Self.address(in: publicRange, offset: offset) }

        static func address(in cidr: String, offset: Int) -> String {
            let octets = cidr.split(separator: "/")[0].split(separator: ".").compactMap { Int($0) }
            let value = octets.reduce(0) { $0 << 8 | $1 } + offset
            return [24, 16, 8, 0].map { String(value >> $0 & 255) }.joined(separator: ".")
        }
    }

    public let script: String

    public static let directory = ProcessInfo.processInfo.environment["MCLOUD_TESTBED_NETWORK_DIR"] ?? "/tmp/mcloud-testbed/network"

    public static func load() throws -> NetworkBed {
        let environment = try TestBedEnvironment.load(directory: directory, start: "scripts/testbed/network.sh start")
        return NetworkBed(script: environment["MCLOUD_TEST_NETWORK_BED"])
    }

    /// `network.sh ARGUMENTS`, failing with its output unless it exits 0.
    @discardableResult
    public func run(_ arguments: [String]) async throws -> Command {
        let result = try await Command.run(script, arguments, environment: ["MCLOUD_TESTBED_NETWORK_DIR": Self.directory])
        guard result.succeeded else {
            throw ContainerBed.Failure(description: "network.sh \(arguments.prefix(3).joined(separator: " ")) exited \(result.exitCode):\n\(result.output)")
        }
        return result
    }

    /// Makes `count` clouds named `<prefix>-<i>`, each with the subnet 10.20.0.0/24 (private ranges may repeat, as
    /// in real clouds) and its own /28 of a /24 in 198.18.0.0/15 (the benchmarking range, never routed) that `seed`
    /// picks, so that concurrent runs rarely meet.
    public func addClouds(prefix: String, count: Int, seed: UInt32) async throws -> [Cloud] {
        let block = Int(seed % 512)
        var clouds: [Cloud] = []
        for index in 0..<count {
            let cloud = Cloud(name: "\(prefix)-\(index)", subnet: "10.20.0.0/24", publicRange: "198.\(18 + block / 256).\(block % 256).\(index * 16)/28")
            try await run(["add-cloud", cloud.name, "--subnet", cloud.subnet, "--public", cloud.publicRange])
            clouds.append(cloud)
        }
        return clouds
    }

    public func remove(_ clouds: [Cloud]) async {
        for cloud in clouds { _ = try? await run(["remove-cloud", cloud.name]) }
    }

    /// `command` in the network namespace of a cloud (or `operator`), with `environment`; its result whatever the exit
    /// code.
    public func exec(in name: String, _ command: [String], environment: [String: String] = [:]) async throws -> Command {
        try await Command.run(script, ["exec", name, "--"] + command, environment: environment.merging(["MCLOUD_TESTBED_NETWORK_DIR": Self.directory]) { $1 })
    }

    /// Every packet over the cloud's link to the internet dropped (`true`), or forwarded again.
    public func cut(_ cloud: Cloud, _ cut: Bool = true) async throws {
        try await run([cut ? "cut" : "restore", cloud.name])
    }
}
