public import MCloudCore
import MCloudHTTP

/// A Cinder volume.
public struct Volume: Sendable, Hashable {
    public var id: String
    public var name: String
    public var sizeGiB: Int
    public var status: String
    public var availabilityZone: String?
    public var metadata: [String: String]
    /// The servers it is attached to.
    public var serverIDs: [String]
    /// Its Cinder volume type (`volume_type`), as the cloud reports it.
    public var volumeType: String?

    static func decode(_ item: JSONValue) -> Volume? {
        guard let id = item["id"]?.stringValue else { return nil }
        var metadata: [String: String] = [:]
        for (key, value) in item["metadata"]?.objectPairs ?? [] { metadata[key] = value.stringValue }
        return Volume(
            id: id, name: item["name"]?.stringValue ?? "", sizeGiB: item["size"]?.intValue ?? 0, status: item["status"]?.stringValue ?? "unknown",
            availabilityZone: item["availability_zone"]?.stringValue, metadata: metadata,
            serverIDs: item["attachments"]?.arrayItems.compactMap { $0["server_id"]?.stringValue } ?? [], volumeType: item["volume_type"]?.stringValue
        )
    }
}

/// Cinder (block storage v3): volumes are created, waited on, and deleted here; attached through `NovaClient`.
public struct CinderClient: Sendable {
    public let session: OpenStackSession
    let poller: Poller
    /// The `limit` each page of a listing asks for; Cinder may give fewer (its `max_limit`) and links the next page.
    let pageSize: Int

    public init(session: OpenStackSession, poller: Poller = .openStack(), pageSize: Int = 100) {
        self.pageSize = pageSize
        self.session = session
        self.poller = poller
    }

    /// Quota exhaustion comes back as `OpenStackError.capacity` (Cinder answers 413 overLimit).
    /// `volumeType`: the Cinder volume type (an encrypted one, the catalog's `spec.vm.encryptedVolumeType`); nil for
    /// the cloud's default.
    public func createVolume(
        name: String, sizeGiB: Int, marks: ResourceMarks, availabilityZone: String? = nil, volumeType: String? = nil
    ) async throws(OpenStackError) -> Volume {
        let body = Self.createBody(name: name, sizeGiB: sizeGiB, marks: marks, availabilityZone: availabilityZone, volumeType: volumeType)
        let answer = try await session.json("block-storage", .POST, "/volumes", body: body, expect: [202], retryable: false, operation: "create volume \(name)")
        guard let volume = answer["volume"].flatMap(Volume.decode) else { throw .invalidResponse("create volume \(name): no volume in the answer") }
        return volume
    }

    /// The body of a volume create.
    static func createBody(name: String, sizeGiB: Int, marks: ResourceMarks, availabilityZone: String?, volumeType: String?) -> JSONValue {
        var volume: [(String, JSONValue)] = [
            ("name", .string(name)), ("size", .int(sizeGiB)), ("metadata", .object(marks.metadata.map { ($0.key, .string($0.value)) })),
        ]
        if let availabilityZone { volume.append(("availability_zone", .string(availabilityZone))) }
        if let volumeType { volume.append(("volume_type", .string(volumeType))) }
        return .object([("volume", .object(volume))])
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

    /// Volumes whose metadata holds every pair given (Cinder filters on the server side), all pages.
    public func volumes(metadata: [String: String]) async throws(OpenStackError) -> [Volume] {
        let filter = JSONValue.object(metadata.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }).serialized(pretty: false)
        let volumes = try await PageLinks.collect("list volumes", links: "volumes_links", id: \.id) { marker throws(OpenStackError) in
            let page = "/volumes/detail?metadata=\(NovaClient.escape(filter))&limit=\(pageSize)" + (marker.map { "&marker=\($0)" } ?? "")
            let answer = try await session.json("block-storage", .GET, page, operation: "list volumes")
            return (answer, answer["volumes"]?.arrayItems.compactMap(Volume.decode) ?? [])
        }
        return volumes.filter { volume in metadata.allSatisfy { volume.metadata[$0.key] == $0.value } }
    }

    /// Grows a volume; attached ones too (microversion 3.42).
    public func extendVolume(_ id: String, toGiB size: Int) async throws(OpenStackError) {
        _ = try await session.json(
            "block-storage", .POST, "/volumes/\(id)/action", body: .object([("os-extend", .object([("new_size", .int(size))]))]),
            headers: [("OpenStack-API-Version", "volume 3.42")], expect: [202], operation: "extend volume \(id) to \(size) GiB"
        )
    }

    /// The names of the block storage availability zones that are up.
    public func availabilityZones() async throws(OpenStackError) -> [String] {
        let answer = try await session.json("block-storage", .GET, "/os-availability-zone", operation: "list volume availability zones")
        return answer["availabilityZoneInfo"]?.arrayItems.compactMap { zone in
            zone["zoneState"]?["available"] == .bool(true) ? zone["zoneName"]?.stringValue : nil
        } ?? []
    }

    /// Waits until no server holds the volume (Nova detaches it when deleting a server).
    public func waitUntilDetached(_ id: String) async throws(OpenStackError) {
        _ = try await poller.poll("volume \(id) to be detached") { () async throws(OpenStackError) -> Bool? in
            do throws(OpenStackError) {
                let volume = try await self.volume(id)
                return ["in-use", "attaching", "detaching", "reserved"].contains(volume.status) ? nil : true
            } catch {
                if error.fault?.status == 404 { return true }
                throw error
            }
        }
    }

    public func deleteVolume(_ id: String, wait: Bool = true) async throws(OpenStackError) {
        _ = try await session.json("block-storage", .DELETE, "/volumes/\(id)", expect: [202, 404], operation: "delete volume \(id)")
        if wait { try await session.waitUntilGone("block-storage", "/volumes/\(id)", poller: poller, what: "volume \(id)") }
    }
}
