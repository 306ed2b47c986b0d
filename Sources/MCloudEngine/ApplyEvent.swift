public import MCloudProvider

/// What apply reports as it goes, one event per line of progress.
public enum ApplyEvent: Sendable, Hashable {
    case started(address: ResourceAddress, action: ResourceChange.Action)
    /// Every `tick` seconds while a resource is still in progress.
    case stillRunning(address: ResourceAddress, action: ResourceChange.Action, seconds: Int)
    case finished(address: ResourceAddress, action: ResourceChange.Action, seconds: Int, providerID: String?)
    case failed(address: ResourceAddress, action: ResourceChange.Action, message: String)
    /// A failure: none of its cloud's other changes and nothing that depends on it starts; what runs finishes.
    case stopping(reason: String)
}
