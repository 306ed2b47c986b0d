import Foundation

/// An API on the host reached as if it ran in a cloud of the network bed: a port of the host's 127.0.0.1 leads into
/// the operator namespace, over the bed's internet to a floating address of the cloud, and from the cloud's gateway to
/// the API (each hop a socat; the namespaces meet the host through Unix sockets in `folder`). Cutting the cloud's link
/// (`NetworkBed.cut`) then drops every packet between the operator and the API, as losing that cloud would, while the
/// API itself keeps running.
public struct APILink: Sendable {
    public let cloud: NetworkBed.Cloud
    /// Where a client on the host connects.
    public let port: Int
    let folder: String
    /// The relays' process IDs.
    let relays: [Int32]

    /// Links `cloud` (made by the caller) to the host's `127.0.0.1:upstream`, the cloud's side listening on
    /// `listenPort` at its gateway, published at its public address 2.
    public static func open(_ network: NetworkBed, cloud: NetworkBed.Cloud, upstream: Int, listenPort: Int = 443) async throws -> APILink {
        let folder = NSTemporaryDirectory() + "mcloud-link-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        guard let port = freeLoopbackPort() else { throw ContainerBed.Failure(description: "no free loopback port for the link") }
        let gateway = cloud.privateAddress(1), floating = cloud.publicAddress(2)
        var relays: [Int32] = []
        func relay(_ arguments: [String], socket: String?) async throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            relays.append(process.processIdentifier)
            guard let socket else { return }
            for _ in 0..<100 where !FileManager.default.fileExists(atPath: "\(folder)/\(socket)") { try await Task.sleep(for: .milliseconds(50)) }
            guard FileManager.default.fileExists(atPath: "\(folder)/\(socket)") else {
                for relay in relays { kill(relay, SIGKILL) }
                throw ContainerBed.Failure(description: "the link's relay \(arguments.joined(separator: " ")) made no socket")
            }
        }
        do {
            try await relay(["socat", "UNIX-LISTEN:\(folder)/api.sock,fork,mode=600", "TCP:127.0.0.1:\(upstream)"], socket: "api.sock")
            try await relay(
                [network.script, "exec", cloud.name, "--", "socat", "TCP-LISTEN:\(listenPort),bind=\(gateway),fork,reuseaddr", "UNIX-CONNECT:\(folder)/api.sock"], socket: nil
            )
            try await network.run(["expose", cloud.name, gateway, floating])
            try await relay([network.script, "exec", "operator", "--", "socat", "UNIX-LISTEN:\(folder)/operator.sock,fork,mode=600", "TCP:\(floating):\(listenPort)"], socket: "operator.sock")
            try await relay(["socat", "TCP-LISTEN:\(port),bind=127.0.0.1,fork,reuseaddr", "UNIX-CONNECT:\(folder)/operator.sock"], socket: nil)
        } catch {
            for relay in relays { kill(relay, SIGKILL) }
            throw error
        }
        return APILink(cloud: cloud, port: port, folder: folder, relays: relays)
    }

    /// Ends the relays and the connections they forked; with SIGKILL, since they inherit the test process's blocked
    /// signals, SIGTERM among them.
    public func close() async {
        for relay in relays { kill(relay, SIGKILL) }
        _ = try? await Command.run("/usr/bin/pkill", ["-KILL", "-f", folder])
        try? FileManager.default.removeItem(atPath: folder)
    }
}
