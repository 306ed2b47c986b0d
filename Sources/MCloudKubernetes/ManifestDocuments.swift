public import MCloudCore
public import MCloudYAML

/// Kubernetes objects read from YAML files (a rendered cluster folder, or the user's own), as JSON values ready
/// for server-side apply. Plain scalars keep their YAML 1.2 types; quoted ones stay strings.
public enum ManifestDocuments {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public static func objects(_ bytes: [UInt8], file: String) throws(Failure) -> [JSONValue] {
        let read = YAMLReader.read(bytes, file: file)
        if let problem = read.diagnostics.first { throw Failure(description: problem.description) }
        var objects: [JSONValue] = []
        for document in read.documents {
            guard let root = document.root else { continue }
            let object = json(root)
            guard ObjectReference(object: object) != nil else {
                throw Failure(description: "\(root.location): a Kubernetes object needs apiVersion, kind and metadata.name")
            }
            objects.append(object)
        }
        return objects
    }

    public static func json(_ node: YAMLNode) -> JSONValue {
        switch node.content {
        case .mapping(let pairs):
            return .object(pairs.map { ($0.key.scalar?.value ?? "", json($0.value)) })
        case .sequence(let items):
            return .array(items.map(json))
        case .scalar(let scalar):
            switch scalar.resolved {
            case .null: return .null
            case .bool(let value): return .bool(value)
            case .int(let value): return .int(value)
            case .float(let value): return .number(value)
            case .string(let value): return .string(value)
            }
        }
    }
}
