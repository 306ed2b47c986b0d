/// Why a provider could not read, create, change or delete a resource, in the cloud's own words.
public struct ProviderError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The provider is not built into this mcloud, or the cloud gives it nothing to connect with.
        case unavailable
        /// The cloud refused for lack of quota or room.
        case capacity
        /// The resource changed under us, or another manager owns a field.
        case conflict
        /// Credentials were refused.
        case unauthorized
        case failed
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
