import MCloudCore
public import MCloudSecrets

/// A connection Secret that `apply` writes carries its edge in one annotation, so the desired resource, the plan and
/// the state hold only names, and the Kubernetes provider derives the values from the operator's identity when it
/// applies the Secret (docs/connectivity.md, "Secrets of a connection").
extension ClientAccess.Edge {
    public static let annotation = "mcloud.io/connection"

    /// Compact JSON with its keys in a fixed order, so the same edge is the same text; `tls` only when unverified,
    /// so the edges of database VMs read as they did before it.
    public var annotationValue: String {
        var fields: [(String, JSONValue)] = [
            ("application", .string(application)), ("cell", .string(cell)), ("service", .string(service)), ("engine", .string(engine.rawValue)),
            ("host", .string(host)), ("port", .int(port)), ("user", .string(user)), ("database", .string(database)),
            ("authorityPath", .string(authorityPath)), ("generation", .int(Int(generation))),
        ]
        if tls != .verified { fields.append(("tls", .string(tls.rawValue))) }
        return JSONValue.object(fields).serialized(pretty: false)
    }

    /// The edge `annotationValue` wrote; an error naming the field at fault for anything else.
    public init(annotationValue text: String) throws(SecretsError) {
        let document: JSONValue
        do {
            document = try JSONParser.parse(text)
        } catch {
            throw .invalidInput(reason: "the \(Self.annotation) annotation is not JSON: \(error)")
        }
        func field(_ key: String) throws(SecretsError) -> String {
            guard let value = document[key]?.stringValue, !value.isEmpty else {
                throw .invalidInput(reason: "the \(Self.annotation) annotation has no \(key)")
            }
            return value
        }
        func number(_ key: String, in range: ClosedRange<Int>) throws(SecretsError) -> Int {
            guard let value = document[key]?.intValue, range.contains(value) else {
                throw .invalidInput(reason: "the \(Self.annotation) annotation's \(key) is not a whole number in \(range)")
            }
            return value
        }
        let engineName = try field("engine")
        guard let engine = Engine(named: engineName) else {
            throw .invalidInput(reason: "the \(Self.annotation) annotation names the engine \(engineName), which mcloud does not know")
        }
        let tlsName = document["tls"]?.stringValue ?? ClientAccess.TLS.verified.rawValue
        guard let tls = ClientAccess.TLS(rawValue: tlsName) else {
            throw .invalidInput(reason: "the \(Self.annotation) annotation's tls is \(tlsName), neither verified nor unverified")
        }
        self.init(
            application: try field("application"), cell: try field("cell"), service: try field("service"), engine: engine, host: try field("host"),
            port: try number("port", in: 1...65535), user: try field("user"), database: try field("database"), authorityPath: try field("authorityPath"),
            generation: UInt32(try number("generation", in: 1...Int(UInt32.max))), tls: tls
        )
    }
}

extension ClientAccess {
    /// The keys of `stringData`, sorted: what a desired connection Secret lists without its values. No CA for an
    /// edge whose server the application's CA did not sign.
    public static func dataKeys(_ edge: Edge) -> [String] {
        (edge.tls == .verified ? [authorityKey] : []) + ["database", "host", "password", "port", "uri", "user"]
    }
}
