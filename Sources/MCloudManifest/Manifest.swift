import MCloudCore
import MCloudYAML

/// One decoded document and the place it was written.
enum Manifest {
    case cloud(Cloud)
    case application(Application)
    case service(Service)
    case database(Database)
    case cdn(CDN)
    case policy(Policy)

    enum Kind: String, CaseIterable {
        case Application
        case CDN
        case Cloud
        case Database
        case Policy
        case Service
    }

    static let apiVersion = "mcloud/v1"
}

/// A document's kind and, when valid, its name, whether or not the rest of it decoded.
struct DocumentSeen {
    var kind: Manifest.Kind
    var name: String?
    var location: SourceLocation
}

extension Decoder {
    /// Decodes the common envelope (`apiVersion`, `kind`, `metadata`, `spec`) and hands `spec` to the kind's decoder.
    func manifest(_ root: YAMLNode) -> Manifest? {
        guard root.mapping != nil else {
            error(root.location, "a manifest must be a mapping with apiVersion, kind, metadata and spec; found \(root.kindDescription)")
            return nil
        }
        guard let fields = mapping(root, "manifest", keys: ["apiVersion", "kind", "metadata", "spec"], required: ["apiVersion", "kind", "metadata", "spec"]) else {
            return nil
        }
        if let node = fields["apiVersion"], let version = string(node, "apiVersion"), version != Manifest.apiVersion {
            error(node.location, "apiVersion \"\(version)\" is not supported; use \(Manifest.apiVersion)")
        }
        let kind = fields["kind"].flatMap { self.kind($0) }
        let metadata = fields["metadata"].flatMap { self.metadata($0) }
        if let kind {
            documentsSeen.append(DocumentSeen(kind: kind, name: metadata?.name, location: metadata?.location ?? root.location))
        }
        guard let kind, let spec = fields["spec"] else { return nil }
        // A bad name still lets the spec be checked, so one run reports every problem; the result is dropped.
        guard let metadata else {
            let standIn = Metadata(name: "invalid", labels: [:], location: root.location)
            _ = decodeSpec(kind, spec, standIn)
            return nil
        }
        sourceMap.record(document: "\(kind.rawValue)/\(metadata.name)", root: root)
        let errorsBefore = diagnostics.errorCount
        let manifest = decodeSpec(kind, spec, metadata)
        // A document is never dropped in silence: that would hide it from every later check.
        if manifest == nil, diagnostics.errorCount == errorsBefore {
            error(metadata.location, "\(kind.rawValue) \"\(metadata.name)\" could not be read (an mcloud bug: please report it with this file)")
        }
        return manifest
    }

    private func decodeSpec(_ kind: Manifest.Kind, _ spec: YAMLNode, _ metadata: Metadata) -> Manifest? {
        switch kind {
        case .Cloud: return cloud(spec, metadata).map(Manifest.cloud)
        case .Application: return application(spec, metadata).map(Manifest.application)
        case .Service: return service(spec, metadata).map(Manifest.service)
        case .Database: return database(spec, metadata).map(Manifest.database)
        case .CDN: return cdn(spec, metadata).map(Manifest.cdn)
        case .Policy: return policy(spec, metadata).map(Manifest.policy)
        }
    }

    private func kind(_ node: YAMLNode) -> Manifest.Kind? {
        guard let value = string(node, "kind") else { return nil }
        if let kind = Manifest.Kind(rawValue: value) { return kind }
        let kinds = Manifest.Kind.allCases.map(\.rawValue)
        let hint = Suggestion.closest(to: value, in: kinds).map { "; did you mean \"\($0)\"?" }
            ?? " (kinds: \(kinds.joined(separator: ", ")))"
        error(node.location, "kind \"\(value)\" is not a kind mcloud knows\(hint)")
        return nil
    }

    struct Metadata {
        var name: String
        var labels: [String: String]
        var location: SourceLocation
    }

    private func metadata(_ node: YAMLNode) -> Metadata? {
        guard let fields = mapping(node, "metadata", keys: ["name", "labels", "annotations"], required: ["name"]) else { return nil }
        var labels: [String: String] = [:]
        if let node = fields["labels"] { labels = stringMap(node, "metadata.labels") }
        if let node = fields["annotations"] { _ = stringMap(node, "metadata.annotations") }
        guard let nameNode = fields["name"], let name = self.name(nameNode, "metadata.name") else { return nil }
        return Metadata(name: name, labels: labels, location: nameNode.location)
    }

    /// A map of string keys to string values, such as labels or env.
    func stringMap(_ node: YAMLNode, _ path: String) -> [String: String] {
        var result: [String: String] = [:]
        for entry in dictionary(node, path) ?? [] {
            if let value = string(entry.value, entry.path) { result[entry.key] = value }
        }
        return result
    }
}
