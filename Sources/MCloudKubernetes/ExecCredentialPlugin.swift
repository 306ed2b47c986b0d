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
/// credential until shortly before it expires; `refresh()` forces a new one after a 401.
public final class ExecCredentialPlugin: Sendable {
    public static let supportedVersions: Set<String> = ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"]

    let config: Kubeconfig.ExecConfig
    let environment: [String: String]
    private let cached = Mutex<ExecCredential?>(nil)
    /// A credential this close to expiry is renewed before use.
    static let renewBefore: TimeInterval = 30

    public init(config: Kubeconfig.ExecConfig, environment: [String: String]) {
        self.config = config
        self.environment = environment
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
        let result: Result<[UInt8], KubernetesError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Self.execute(config, environment: environment))
            }
        }
        return try result.get()
    }

    private static func execute(_ config: Kubeconfig.ExecConfig, environment: [String: String]) -> Result<[UInt8], KubernetesError> {
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
        do {
            try process.run()
        } catch {
            return .failure(.credentials("exec plugin \(config.command) could not start: \(error.localizedDescription)" + (config.installHint.map { "; \($0)" } ?? "")))
        }
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let detail = String(decoding: stderr.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let missing = process.terminationStatus == 127 ? (config.installHint.map { "; \($0)" } ?? "; is it installed?") : ""
            return .failure(.credentials("exec plugin \(config.command) exited with \(process.terminationStatus): \(detail)\(missing)"))
        }
        return .success(Array(stdout))
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
