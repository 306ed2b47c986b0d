/// Why the engine stopped: the message names the resources, clouds or files involved.
public struct EngineError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
