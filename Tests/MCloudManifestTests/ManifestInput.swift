import Foundation
import MCloudManifest
import Testing

/// Builds in-memory manifest inputs for table-driven tests: the `Fixtures/base` files (`app.yaml`, `clouds.yaml`)
/// with small, exact changes applied, plus optional extra files.
enum ManifestInput {
    /// One change to the base input. Replacements must match exactly once, so a stale case fails loudly
    /// instead of silently testing the unchanged fixture.
    enum Change: Sendable {
        /// Replace the only occurrence of a text in a file.
        case replace(in: String, String, with: String)
        /// Add a file (or replace one of the base files) with this text.
        case add(String, String)
        /// Add a file with these exact bytes, for input that is not valid text.
        case addBytes(String, [UInt8])
        /// Add text at the end of a file.
        case append(String, String)
        /// Put bytes in front of a file, such as a byte order mark.
        case prefix(String, [UInt8])
        /// Cut a file right after the only occurrence of a text, as an interrupted write would.
        case truncate(String, after: String)
        /// Leave a base file out.
        case remove(String)
        /// Rewrite every line ending of a file as CR LF.
        case crlf(String)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The base fixture, file name to bytes.
    static let base: [String: [UInt8]] = {
        guard let directory = Bundle.module.path(forResource: "Fixtures/base", ofType: nil) else { return [:] }
        var files: [String: [UInt8]] = [:]
        for name in ["app.yaml", "clouds.yaml"] {
            if let data = FileManager.default.contents(atPath: directory + "/" + name) { files[name] = Array(data) }
        }
        return files
    }()

    /// The sources for `changes`, sorted by file name as `ManifestLoader.load(paths:providers:)` would read them.
    static func sources(_ changes: [Change]) throws -> [ManifestLoader.Source] {
        guard base.count == 2 else { throw Failure(description: "cannot read Fixtures/base") }
        var files = base
        for change in changes {
            switch change {
            case .replace(let file, let old, let new):
                let text = try self.text(files, file)
                let count = text.components(separatedBy: old).count - 1
                guard count == 1 else {
                    throw Failure(description: "\(file) holds \(count) occurrences of \(old.debugDescription), not exactly one")
                }
                files[file] = Array(text.replacingOccurrences(of: old, with: new).utf8)
            case .add(let file, let text):
                files[file] = Array(text.utf8)
            case .addBytes(let file, let bytes):
                files[file] = bytes
            case .append(let file, let text):
                files[file] = Array(try self.text(files, file).utf8) + Array(text.utf8)
            case .prefix(let file, let bytes):
                files[file] = bytes + (files[file] ?? [])
            case .truncate(let file, let marker):
                let text = try self.text(files, file)
                guard let range = text.range(of: marker), text.components(separatedBy: marker).count == 2 else {
                    throw Failure(description: "\(file) does not hold \(marker.debugDescription) exactly once")
                }
                files[file] = Array(text[..<range.upperBound].utf8)
            case .remove(let file):
                files[file] = nil
            case .crlf(let file):
                files[file] = Array(try self.text(files, file).replacingOccurrences(of: "\n", with: "\r\n").utf8)
            }
        }
        return files.keys.sorted().map { ManifestLoader.Source(file: $0, bytes: files[$0] ?? []) }
    }

    private static func text(_ files: [String: [UInt8]], _ name: String) throws -> String {
        guard let bytes = files[name], let text = String(validating: bytes, as: UTF8.self) else {
            throw Failure(description: "no text file \(name) to change")
        }
        return text
    }
}

/// Small valid documents that no base document refers to, so breaking one of them shows only its own diagnostics.
/// Each is added as `extra.yaml`; the line numbers in the comments are the ones the expected diagnostics name.
enum Template {
    static let service = """
        apiVersion: mcloud/v1
        kind: Service
        metadata: { name: worker }
        spec:
          image: registry.example/worker:1.0.0
          replicas: 2
          resources: { cpu: 250m, memory: 256Mi }
          ports: [{ name: http, port: 8080 }]

        """
    // 1 apiVersion | 2 kind | 3 metadata | 4 spec: | 5 image | 6 replicas | 7 resources | 8 ports

    static let database = """
        apiVersion: mcloud/v1
        kind: Database
        metadata: { name: ledger-db }
        spec:
          engine: postgresql
          version: "16"
          size: { vcpu: 2, memoryGiB: 8, storageGiB: 100 }
          backup:
            schedule: "0 3 * * *"
            retentionDays: 7

        """
    // 1 apiVersion | 2 kind | 3 metadata | 4 spec: | 5 engine | 6 version | 7 size | 8 backup: | 9 schedule | 10 retentionDays

    static let cloud = """
        apiVersion: mcloud/v1
        kind: Cloud
        metadata: { name: sel-spb }
        spec:
          vendor: selectel
          api: openstack
          jurisdiction: [RU]
          region: ru-spb
          offers: { kubernetes: true, vm: true, objectStorage: true }
          capacity: { vcpu: 256, memoryGiB: 1024, storageGiB: 10000 }
          pricing:
            currency: RUB
            vcpuHour: 1.1
            memoryGiBHour: 0.35
            storageGiBMonth: 7
            objectStorageGiBMonth: 1.8
            egressGiB: 1.2
          latencyMs: { ru: 15, eu: 60 }

        """
    // 1 apiVersion | 2 kind | 3 metadata | 4 spec: | 5 vendor | 6 api | 7 jurisdiction | 8 region | 9 offers | 10 capacity
    // 11 pricing: | 12 currency | 13 vcpuHour | 14 memoryGiBHour | 15 storageGiBMonth | 16 objectStorageGiBMonth | 17 egressGiB

    static let cdn = """
        apiVersion: mcloud/v1
        kind: CDN
        metadata: { name: assets }
        spec:
          origins: [payments-api]
          trafficGiBMonth: 100

        """
    // 1 apiVersion | 2 kind | 3 metadata | 4 spec: | 5 origins | 6 trafficGiBMonth

    static let policy = """
        apiVersion: mcloud/v1
        kind: Policy
        metadata: { name: guardrails }
        spec:
          rules:
            - { maxMonthlyCost: 250000, level: mandatory }
            - { denyMove: { from: [vk-msk] }, level: advisory }

        """
    // 1 apiVersion | 2 kind | 3 metadata | 4 spec: | 5 rules: | 6 maxMonthlyCost | 7 denyMove

    static let application = """
        apiVersion: mcloud/v1
        kind: Application
        metadata: { name: second-app }
        spec:
          currency: USD
          audiences: [{ name: ru, jurisdiction: RU }]

        """
}

extension Array where Element == ManifestInput.Change {
    /// `extra.yaml` holding `template` with one text replaced.
    static func extra(_ template: String, _ old: String, _ new: String) -> Self {
        [.add("extra.yaml", template), .replace(in: "extra.yaml", old, with: new)]
    }

    /// `extra.yaml` holding `template` with lines added at its end (inside its `spec`, when indented by two).
    static func extra(_ template: String, adding lines: String) -> Self {
        [.add("extra.yaml", template), .append("extra.yaml", lines)]
    }

    static func app(_ old: String, _ new: String) -> Self { [.replace(in: "app.yaml", old, with: new)] }
    static func clouds(_ old: String, _ new: String) -> Self { [.replace(in: "clouds.yaml", old, with: new)] }
}
