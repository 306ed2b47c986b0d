import MCloudOpenStack

/// What one refresh read from a cloud: mcloud's servers, volumes and security groups of one application (found by
/// their ownership metadata and tags) and the project's Trove instances. Each kind picks its own resources from it.
struct Inventory: Sendable {
    var servers: [Server] = []
    var volumes: [Volume] = []
    var groups: [SecurityGroup] = []
    var databases: [DatabaseInstance] = []

    /// The engine address a server, volume or group was made for.
    static func address(of server: Server) -> String? { server.metadata[OwnershipKeys.address] }
    static func address(of volume: Volume) -> String? { volume.metadata[OwnershipKeys.address] }
    static func address(of group: SecurityGroup) -> String? {
        group.tags.first { $0.hasPrefix("address:") }.map { String($0.dropFirst("address:".count)) }
    }
}
