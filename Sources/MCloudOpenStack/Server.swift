import Foundation
import MCloudCore

/// The metadata pairs (in the order written) and tags that say whose a server or volume is. The client writes and
/// filters on them as given; which keys and values mean "mcloud made this" is the provider's to say.
public struct ResourceMarks: Sendable, Hashable {
    public struct Pair: Sendable, Hashable {
        public var key: String
        public var value: String

        public init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    public var metadata: [Pair]
    /// Nova and Neutron tags, each made fit by `tag(_:)`.
    public var tags: [String]

    public init(metadata: [Pair], tags: [String]) {
        self.metadata = metadata
        self.tags = tags.map(Self.tag)
    }

    /// Nova tags: at most 60 characters, no `/` or `,`.
    public static func tag(_ text: String) -> String {
        String(text.map { $0 == "/" || $0 == "," ? "_" : $0 }.prefix(60))
    }
}

/// What to boot.
public struct ServerRequest: Sendable, Hashable {
    public enum Networks: Sendable, Hashable {
        /// `"networks": "none"`: no port at all.
        case none
        /// `"networks": "auto"`: Nova picks or allocates one.
        case auto
        case ids([String])
    }

    public var name: String
    public var imageID: String
    public var flavorID: String
    /// cloud-init user data as sent (the providers gzip it); the client base64-encodes it.
    public var userData: [UInt8]?
    public var marks: ResourceMarks
    public var securityGroups: [String]
    public var networks: Networks
    public var keyName: String?
    /// Nil lets Nova choose.
    public var availabilityZone: String?

    public init(
        name: String, imageID: String, flavorID: String, userData: [UInt8]? = nil, marks: ResourceMarks, securityGroups: [String] = [],
        networks: Networks = .auto, keyName: String? = nil, availabilityZone: String? = nil
    ) {
        self.availabilityZone = availabilityZone
        self.name = name
        self.imageID = imageID
        self.flavorID = flavorID
        self.userData = userData
        self.marks = marks
        self.securityGroups = securityGroups
        self.networks = networks
        self.keyName = keyName
    }

    /// The `POST /servers` body. `requestTag` is unique to one create call, so a retry can find the server an
    /// earlier attempt made.
    func body(requestTag: String) -> JSONValue {
        var server: [(String, JSONValue)] = [("name", .string(name)), ("imageRef", .string(imageID)), ("flavorRef", .string(flavorID))]
        switch networks {
        case .none: server.append(("networks", .string("none")))
        case .auto: server.append(("networks", .string("auto")))
        case .ids(let ids): server.append(("networks", .array(ids.map { .object([("uuid", .string($0))]) })))
        }
        if let userData { server.append(("user_data", .string(Data(userData).base64EncodedString()))) }
        if let keyName { server.append(("key_name", .string(keyName))) }
        if let availabilityZone { server.append(("availability_zone", .string(availabilityZone))) }
        if !securityGroups.isEmpty { server.append(("security_groups", .array(securityGroups.map { .object([("name", .string($0))]) }))) }
        server.append(("metadata", .object(marks.metadata.map { ($0.key, .string($0.value)) } + [("request", .string(requestTag))])))
        server.append(("tags", .array((marks.tags + [requestTag]).map { .string($0) })))
        return .object([("server", .object(server))])
    }
}

/// A server as Nova reports it.
public struct Server: Sendable, Hashable {
    public var id: String
    public var name: String
    public var status: String
    public var tags: [String]
    public var metadata: [String: String]
    /// The fault message of a server in ERROR.
    public var fault: String?
    /// The flavor's size as embedded in the server (microversion 2.47 and later).
    public var flavorVCPUs: Int?
    public var flavorRAMMiB: Int?
    public var availabilityZone: String?
    /// `deleting`, `resize_prep`, ... while Nova works on the server.
    public var taskState: String?
    public var attachedVolumeIDs: [String]
    /// The server's addresses on all its networks, floating ones first (they reach it from outside its cloud), then
    /// fixed ones, each group in the order Nova lists them.
    public var addresses: [String] = []

    static func decode(_ item: JSONValue) -> Server? {
        guard let id = item["id"]?.stringValue else { return nil }
        var metadata: [String: String] = [:]
        for (key, value) in item["metadata"]?.objectPairs ?? [] { metadata[key] = value.stringValue }
        return Server(
            id: id, name: item["name"]?.stringValue ?? "", status: item["status"]?.stringValue ?? "UNKNOWN",
            tags: item["tags"]?.arrayItems.compactMap(\.stringValue) ?? [], metadata: metadata, fault: item["fault"]?["message"]?.stringValue,
            flavorVCPUs: item["flavor"]?["vcpus"]?.intValue, flavorRAMMiB: item["flavor"]?["ram"]?.intValue,
            availabilityZone: item["OS-EXT-AZ:availability_zone"]?.stringValue, taskState: item["OS-EXT-STS:task_state"]?.stringValue,
            attachedVolumeIDs: item["os-extended-volumes:volumes_attached"]?.arrayItems.compactMap { $0["id"]?.stringValue } ?? [],
            addresses: addresses(item["addresses"])
        )
    }

    /// `addresses` is keyed by network name: `{"private": [{"addr": "10.0.0.5", "OS-EXT-IPS:type": "fixed"}]}`.
    private static func addresses(_ networks: JSONValue?) -> [String] {
        let entries = (networks?.objectPairs ?? []).sorted { $0.0 < $1.0 }.flatMap { $0.1.arrayItems }
        let floating = entries.filter { $0["OS-EXT-IPS:type"]?.stringValue == "floating" }.compactMap { $0["addr"]?.stringValue }
        let fixed = entries.filter { $0["OS-EXT-IPS:type"]?.stringValue != "floating" }.compactMap { $0["addr"]?.stringValue }
        return floating + fixed
    }

    /// Being deleted, or deleted and still listed.
    public var isDeleting: Bool {
        taskState == "deleting" || status == "DELETED" || status == "SOFT_DELETED"
    }
}
