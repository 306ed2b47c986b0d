/// A Kubernetes Secret of string data, the input of `SopsEncryptor` and the output of `SopsDecryptor`.
public struct KubernetesSecret: Sendable, Equatable {
    public var name: String
    public var namespace: String
    public var type: String
    /// Written sorted by key, so the document does not depend on the order the caller built the dictionary in.
    public var stringData: [String: String]

    public init(name: String, namespace: String, type: String = "Opaque", stringData: [String: String]) {
        self.name = name
        self.namespace = namespace
        self.type = type
        self.stringData = stringData
    }

    /// The keys Kubernetes accepts in a Secret's data (`[-._a-zA-Z0-9]+`), checked before anything is encrypted.
    func validate() throws(SecretsError) {
        guard !name.isEmpty, !namespace.isEmpty, !type.isEmpty else { throw .invalidInput(reason: "a Secret needs a name, a namespace and a type") }
        for key in stringData.keys where key.isEmpty || !key.utf8.allSatisfy(Self.isKeyByte) {
            throw .invalidInput(reason: "Secret \(namespace)/\(name): \"\(key)\" is not a valid data key ([-._a-zA-Z0-9]+)")
        }
    }

    private static func isKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"): return true
        default: return false
        }
    }
}
