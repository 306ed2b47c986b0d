import MCloudCore

/// A Cinder volume.
public struct Volume: Sendable, Hashable {
    public var id: String
    public var name: String
    public var sizeGiB: Int
    public var status: String

    static func decode(_ item: JSONValue) -> Volume? {
        guard let id = item["id"]?.stringValue else { return nil }
        return Volume(id: id, name: item["name"]?.stringValue ?? "", sizeGiB: item["size"]?.intValue ?? 0, status: item["status"]?.stringValue ?? "unknown")
    }
}

/// Cinder (block storage v3): volumes are created, waited on, and deleted here; attached through `NovaClient`.
public struct CinderClient: Sendable {
    public let session: OpenStackSession
    let poller: Poller

    public init(session: OpenStackSession, poller: Poller = Poller()) {
        self.session = session
        self.poller = poller
    }

    /// Quota exhaustion comes back as `OpenStackError.capacity` (Cinder answers 413 overLimit).
    public func createVolume(name: String, sizeGiB: Int, ownership: Ownership) async throws(OpenStackError) -> Volume {
        let body: JSONValue = .object([("volume", .object([
            ("name", .string(name)), ("size", .int(sizeGiB)), ("metadata", .object(ownership.metadata.map { ($0.0, .string($0.1)) })),
        ]))])
        let answer = try await session.json("block-storage", .POST, "/volumes", body: body, expect: [202], retryable: false, operation: "create volume \(name)")
        guard let volume = answer["volume"].flatMap(Volume.decode) else { throw .invalidResponse("create volume \(name): no volume in the answer") }
        return volume
    }

    public func volume(_ id: String) async throws(OpenStackError) -> Volume {
        let answer = try await session.json("block-storage", .GET, "/volumes/\(id)", operation: "get volume \(id)")
        guard let volume = answer["volume"].flatMap(Volume.decode) else { throw .invalidResponse("get volume \(id): no volume in the answer") }
        return volume
    }

    /// Waits for `status` (`available`, `in-use`); an `error` status ends the wait.
    public func waitForStatus(_ id: String, _ status: String) async throws(OpenStackError) -> Volume {
        try await poller.poll("volume \(id) to become \(status)") { () async throws(OpenStackError) -> Volume? in
            let volume = try await self.volume(id)
            if volume.status.hasPrefix("error") { throw .resourceFailed("volume \(volume.name) (\(id)) is in \(volume.status)") }
            return volume.status == status ? volume : nil
        }
    }

    public func deleteVolume(_ id: String, wait: Bool = true) async throws(OpenStackError) {
        _ = try await session.json("block-storage", .DELETE, "/volumes/\(id)", expect: [202, 404], operation: "delete volume \(id)")
        if wait { try await session.waitUntilGone("block-storage", "/volumes/\(id)", poller: poller, what: "volume \(id)") }
    }
}
