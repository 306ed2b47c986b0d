/// A value made once, when first asked for, then shared by every caller: a provider's client, so that (as
/// `ProviderCatalog` promises) a provider connects only when first used and a plan that reads nothing from a cloud
/// needs no credentials for it. A failed attempt is not kept: the next caller tries again.
public actor OnFirstUse<Value: Sendable, Failure: Error> {
    private let make: @Sendable () throws(Failure) -> Value
    private var made: Value?

    public init(_ make: @escaping @Sendable () throws(Failure) -> Value) {
        self.make = make
    }

    public func value() throws(Failure) -> Value {
        if let made { return made }
        let value = try make()
        made = value
        return value
    }
}
