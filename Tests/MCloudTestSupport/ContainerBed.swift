public import Foundation

/// The container test bed (`scripts/testbed/container.sh`): Debian 12 system containers that boot cloud-init user
/// data for real, each with a loop-device data disk and ports crossing to the host. Read from the env file `start`
/// writes; tests that need it fail, never skip, without it.
public struct ContainerBed: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    public let script: String
    public let environment: TestBedEnvironment

    public static let directory = ProcessInfo.processInfo.environment["MCLOUD_TESTBED_CONTAINER_DIR"] ?? "/tmp/mcloud-testbed/container"

    public static func load() throws -> ContainerBed {
        let environment = try TestBedEnvironment.load(directory: directory, start: "scripts/testbed/container.sh start")
        return ContainerBed(script: environment["MCLOUD_TEST_CONTAINER_BED"], environment: environment)
    }

    /// `container.sh ARGUMENTS`, failing with its output unless it exits 0.
    @discardableResult
    public func run(_ arguments: [String], input: Data? = nil) async throws -> Command {
        let result = try await Command.run(script, arguments, input: input, environment: ["MCLOUD_TESTBED_CONTAINER_DIR": Self.directory])
        guard result.succeeded else {
            throw Failure(description: "container.sh \(arguments.prefix(3).joined(separator: " ")) exited \(result.exitCode):\n\(result.output)")
        }
        return result
    }

    /// Boots `name` with exactly `userData`; `options` are boot's (`--publish 5432`, `--reach 24566`, `--disk 1G`).
    public func boot(_ name: String, userData: String, options: [String] = []) async throws {
        try await boot(name, userData: Array(userData.utf8), options: options)
    }

    /// Boots `name` with exactly these bytes as its user data: what a cloud handed over, gzipped as the providers send it.
    public func boot(_ name: String, userData: [UInt8], options: [String] = []) async throws {
        let file = NSTemporaryDirectory() + "mcloud-user-data-\(name)-\(UUID().uuidString.prefix(8))"
        try Data(userData).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await run(["boot", name, "--user-data", file] + options)
    }

    /// `cloud-init status --wait` until done; a failure carries cloud-init's output log.
    public func wait(_ name: String, timeout: Int = 900) async throws {
        let result = try await Command.run(script, ["wait", name, "--timeout", String(timeout)], environment: ["MCLOUD_TESTBED_CONTAINER_DIR": Self.directory])
        guard result.succeeded else {
            let logs = try? await Command.run(script, ["logs", name, "cloud-init"], environment: ["MCLOUD_TESTBED_CONTAINER_DIR": Self.directory])
            throw Failure(description: "cloud-init in \(name) did not finish cleanly:\n\(result.output)\n\(logs?.stdout.suffix(6000) ?? "")")
        }
    }

    /// A command inside `name`, as root; its result whatever the exit code.
    public func exec(_ name: String, _ command: [String], input: Data? = nil) async throws -> Command {
        try await Command.run(script, ["exec", name, "--"] + command, input: input, environment: ["MCLOUD_TESTBED_CONTAINER_DIR": Self.directory])
    }

    /// A shell command inside `name` that must succeed; its standard output.
    public func shell(_ name: String, _ command: String, input: Data? = nil) async throws -> String {
        let result = try await exec(name, ["bash", "-euo", "pipefail", "-c", command], input: input)
        guard result.succeeded else { throw Failure(description: "in \(name): \(command)\nexit \(result.exitCode): \(result.output)") }
        return result.stdout
    }

    /// The host port where `name`'s `port` is published.
    public func port(_ name: String, _ port: Int) async throws -> Int {
        let text = try await run(["port", name, String(port)]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let host = Int(text) else { throw Failure(description: "container.sh port \(name) \(port) printed \(text)") }
        return host
    }

    /// The end of each instance's cloud-init output (`last` characters), printed: what a failed bed test shows.
    public func printCloudInitOutput(_ names: [String], last: Int = 3000) async {
        for name in names {
            print("---- \(name)'s cloud-init output:\n" + ((try? await run(["logs", name, "cloud-init"]).stdout.suffix(last)) ?? ""))
        }
    }

    public func destroy(_ name: String) async {
        _ = try? await run(["destroy", name])
    }

    /// `cloud-init schema --config-file` of each file with Debian 12's cloud-init.
    public func schema(_ files: [String]) async throws -> Command {
        try await Command.run(script, ["schema"] + files, environment: ["MCLOUD_TESTBED_CONTAINER_DIR": Self.directory])
    }

    /// The upper layer of `name`'s overlay on the host: every file the instance wrote.
    public func upper(_ name: String) -> String {
        "\(environment["MCLOUD_TEST_CONTAINER_STATE"])/instances/\(name)/upper"
    }
}
