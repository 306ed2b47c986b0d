public import Foundation
import MCloudCore
import Synchronization

/// What an exec credential plugin returned (client.authentication.k8s.io ExecCredential).
public struct ExecCredential: Sendable, Hashable {
    public var token: String?
    public var clientCertificatePEM: [UInt8]?
    public var clientKeyPEM: [UInt8]?
    public var expiration: Date?
}

/// Runs a kubeconfig exec plugin (as EKS's `aws eks get-token` or OpenStack clouds' helpers are run) and keeps its
/// credential until shortly before it expires; `refresh()` forces a new one after a 401. A plugin that runs past
/// its timeout is stopped, and what it prints is bounded.
public final class ExecCredentialPlugin: Sendable {
    public static let supportedVersions: Set<String> = ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"]

    let config: Kubeconfig.ExecConfig
    let environment: [String: String]
    /// Seconds a plugin may run before it is stopped (kubectl waits forever; see the module's README).
    let timeout: Double
    private let cached = Mutex<ExecCredential?>(nil)
    /// A credential this close to expiry is renewed before use.
    static let renewBefore: TimeInterval = 30
    public static let defaultTimeout: Double = 60
    /// The most an ExecCredential may take (certificates included); more is refused, not kept.
    static let maxOutputBytes = 1 << 20
    /// Of stderr only the start is kept for the error message; the rest is read and dropped.
    static let keptErrorBytes = 64 << 10

    public init(config: Kubeconfig.ExecConfig, environment: [String: String], timeout: Double = ExecCredentialPlugin.defaultTimeout) {
        self.config = config
        self.environment = environment
        self.timeout = timeout
    }

    public func credential(now: Date = Date()) async throws(KubernetesError) -> ExecCredential {
        if let current = cached.withLock({ $0 }), current.expiration.map({ $0.timeIntervalSince(now) > Self.renewBefore }) ?? true {
            return current
        }
        return try await refresh()
    }

    @discardableResult
    public func refresh() async throws(KubernetesError) -> ExecCredential {
        let output = try await run()
        let credential = try Self.decode(output, expectedVersion: config.apiVersion, command: config.command)
        cached.withLock { $0 = credential }
        return credential
    }

    private func run() async throws(KubernetesError) -> [UInt8] {
        let config = self.config
        var merged = self.environment
        for (name, value) in config.env { merged[name] = value }
        merged["KUBERNETES_EXEC_INFO"] = #"{"apiVersion":"\#(config.apiVersion)","kind":"ExecCredential","spec":{"interactive":false}}"#
        let environment = merged
        let timeout = self.timeout
        let result: Result<[UInt8], KubernetesError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Self.execute(
                    config, environment: environment, timeout: timeout, maxOutputBytes: Self.maxOutputBytes, keptErrorBytes: Self.keptErrorBytes
                ))
            }
        }
        return try result.get()
    }

    private static func execute(
        _ config: Kubeconfig.ExecConfig, environment: [String: String], timeout: Double, maxOutputBytes: Int, keptErrorBytes: Int
    ) -> Result<[UInt8], KubernetesError> {
        let process = Process()
        if config.command.contains("/") {
            process.executableURL = URL(fileURLWithPath: config.command)
            process.arguments = config.args
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [config.command] + config.args
        }
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            return .failure(.credentials("exec plugin \(config.command) could not start: \(error.localizedDescription)" + (config.installHint.map { "; \($0)" } ?? "")))
        }
        // Both streams are drained at once: a plugin that fills the stderr pipe (64 KiB) while stdout is read first
        // would wait forever for a reader, and so would mcloud, with the state lock held.
        let stdout = BoundedPipeReader(output, limit: maxOutputBytes)
        let stderr = BoundedPipeReader(errors, limit: keptErrorBytes)
        stdout.start()
        stderr.start()
        let deadline = DispatchTime.now() + timeout
        guard exited.wait(timeout: deadline) == .success else {
            stop(process, exited: exited)
            return .failure(.credentials("exec plugin \(config.command) did not finish within \(Self.format(timeout)) s and was stopped"))
        }
        // A child the plugin left behind may still hold the pipes open: wait for them only until the same deadline.
        guard stdout.wait(until: deadline), stderr.wait(until: deadline) else {
            return .failure(.credentials("exec plugin \(config.command) exited, but something it started kept its output open for \(Self.format(timeout)) s"))
        }
        guard process.terminationStatus == 0 else {
            let detail = String(decoding: stderr.output.kept.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let missing = process.terminationStatus == 127 ? (config.installHint.map { "; \($0)" } ?? "; is it installed?") : ""
            return .failure(.credentials("exec plugin \(config.command) exited with \(process.terminationStatus): \(detail)\(missing)"))
        }
        let printed = stdout.output
        guard printed.total <= maxOutputBytes else {
            return .failure(.credentials("exec plugin \(config.command) printed \(printed.total) bytes, more than the \(maxOutputBytes) an ExecCredential may take"))
        }
        return .success(printed.kept)
    }

    /// SIGTERM, then SIGKILL if the plugin is still there after a short grace.
    private static func stop(_ process: Process, exited: DispatchSemaphore) {
        process.terminate()
        if exited.wait(timeout: .now() + 2) == .timedOut { kill(process.processIdentifier, SIGKILL) }
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    static func decode(_ output: [UInt8], expectedVersion: String, command: String) throws(KubernetesError) -> ExecCredential {
        let document: JSONValue
        do {
            document = try JSONParser.parse(output)
        } catch {
            throw .credentials("exec plugin \(command) did not print an ExecCredential: \(error)")
        }
        guard document["kind"]?.stringValue == "ExecCredential" else {
            throw .credentials("exec plugin \(command) printed kind \(document["kind"]?.stringValue ?? "nothing"), not ExecCredential")
        }
        guard document["apiVersion"]?.stringValue == expectedVersion else {
            throw .credentials("exec plugin \(command) answered with apiVersion \(document["apiVersion"]?.stringValue ?? "none"), but the kubeconfig asked for \(expectedVersion)")
        }
        let status = document["status"]
        var credential = ExecCredential(
            token: status?["token"]?.stringValue,
            clientCertificatePEM: status?["clientCertificateData"]?.stringValue.map { Array($0.utf8) },
            clientKeyPEM: status?["clientKeyData"]?.stringValue.map { Array($0.utf8) },
            expiration: nil
        )
        if let text = status?["expirationTimestamp"]?.stringValue {
            guard let date = ISO8601DateFormatter().date(from: text) else {
                throw .credentials("exec plugin \(command) gave an expirationTimestamp that is not RFC 3339: \(text)")
            }
            credential.expiration = date
        }
        guard credential.token != nil || (credential.clientCertificatePEM != nil && credential.clientKeyPEM != nil) else {
            throw .credentials("exec plugin \(command) gave neither a token nor a client certificate and key")
        }
        return credential
    }
}
