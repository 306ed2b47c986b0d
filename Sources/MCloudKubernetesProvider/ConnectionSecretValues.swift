import Foundation
import MCloudCore
import MCloudDatabaseEngines
import MCloudProvider
import MCloudSecrets

/// The values of the connection Secrets `apply` writes (docs/connectivity.md, "Secrets of a connection"). A desired
/// Secret names its edge in an annotation and holds the redaction marker for each value; the values are derived from
/// the operator's age identity only here, when the Secret is applied, so no plan, state or log holds them. Read back,
/// every Secret's data is masked: the state learns whether a value still is the derived one, never what it is.
struct ConnectionSecretValues: Sendable {
    /// What a value read back becomes when it is not the one derived for its edge: a change outside mcloud, which
    /// the next plan restores.
    static let differs = "(differs from the derived value)"

    private let root: OnFirstUse<SecretRoot, SecretsError>

    init(environment: [String: String]) {
        root = OnFirstUse { () throws(SecretsError) -> SecretRoot in SecretRoot(identity: try AgeKeyFile.load(environment: environment)) }
    }

    /// `body` with its data derived, base64 as the API takes it; any other object as it is.
    func filled(_ body: JSONValue) async throws(ProviderError) -> JSONValue {
        guard let edge = try Self.edge(of: body) else { return body }
        let values: [String: String]
        do {
            values = try ClientAccess(root: try await root.value(), edge: edge).stringData
        } catch {
            throw ProviderError(.unavailable, "\(Self.describe(body)) is derived from the operator's age identity, and \(error.description)")
        }
        return Self.replacing(data: .object(values.sorted { $0.key < $1.key }.map { ($0.key, .string(Self.base64($0.value))) }), in: body)
    }

    /// `object` as the cluster gave it, with every value of a Secret's data replaced by the redaction marker, or by
    /// `differs` where a connection Secret's value is not the derived one; and a warning when its annotation is not
    /// one mcloud wrote. Without the operator's identity the values are masked unchecked: a plan has refused to run
    /// without it already, and `mcloud status` (which a monitoring host may run) must not need it.
    func masked(_ object: JSONValue) async -> (object: JSONValue, warnings: [String]) {
        guard object["kind"]?.stringValue == ResourceKind.secret.rawValue, case .object(let data)? = object["data"] else { return (object, []) }
        var derived: [String: String]?
        var warnings: [String] = []
        do throws(ProviderError) {
            if let edge = try Self.edge(of: object), let root = try? await root.value() {
                derived = try? ClientAccess(root: root, edge: edge).stringData.mapValues(Self.base64)
            }
        } catch {
            warnings.append(error.message)
        }
        let masked = data.map { key, value -> (String, JSONValue) in
            guard let derived, derived[key] != value.stringValue else { return (key, SecretRedaction.marker) }
            return (key, .string(Self.differs))
        }
        return (Self.replacing(data: .object(masked), in: object), warnings)
    }

    /// The edge a Secret's annotation names; nil for any object without one.
    private static func edge(of body: JSONValue) throws(ProviderError) -> ClientAccess.Edge? {
        guard body["kind"]?.stringValue == ResourceKind.secret.rawValue,
            let text = body.value(at: ["metadata", "annotations", ClientAccess.Edge.annotation])?.stringValue
        else { return nil }
        do {
            return try ClientAccess.Edge(annotationValue: text)
        } catch {
            throw ProviderError(.failed, "\(describe(body)): \(error.description)")
        }
    }

    private static func describe(_ body: JSONValue) -> String {
        let namespace = body.value(at: ["metadata", "namespace"])?.stringValue ?? ""
        return "the Secret \(namespace)/\(body.value(at: ["metadata", "name"])?.stringValue ?? "")"
    }

    private static func base64(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
    }

    private static func replacing(data: JSONValue, in object: JSONValue) -> JSONValue {
        guard case .object(let pairs) = object else { return object }
        return .object(pairs.filter { $0.0 != "stringData" }.map { $0.0 == "data" ? ("data", data) : $0 })
    }
}
