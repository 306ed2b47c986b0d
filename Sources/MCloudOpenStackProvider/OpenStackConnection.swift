import MCloudCore
import MCloudOpenStack
import MCloudProvider
import MCloudHTTP

/// The clients for one cloud, made on first use, and what rarely changes there (flavors, the image, the network,
/// the zones), read once per run.
actor OpenStackConnection {
    struct Clients: Sendable {
        var nova: NovaClient
        var cinder: CinderClient
        var neutron: NeutronClient
        var trove: TroveClient
        var session: OpenStackSession
    }

    private let connect: @Sendable () throws(OpenStackError) -> OpenStackSession
    private let poller: MCloudOpenStack.Poller
    private var made: Clients?
    private var flavorList: [Flavor]?
    /// Image IDs by their Glance query.
    private var images: [String: String] = [:]
    private var network: ServerRequest.Networks?
    private var computeZoneNames: [String]?
    private var volumeZoneNames: [String]?

    init(poller: MCloudOpenStack.Poller, connect: @escaping @Sendable () throws(OpenStackError) -> OpenStackSession) {
        self.poller = poller
        self.connect = connect
    }

    func clients() throws(OpenStackError) -> Clients {
        if let made { return made }
        let session = try connect()
        let clients = Clients(
            nova: NovaClient(session: session, poller: poller), cinder: CinderClient(session: session, poller: poller),
            neutron: NeutronClient(session: session), trove: TroveClient(session: session, poller: poller), session: session
        )
        made = clients
        return clients
    }

    func flavors() async throws(OpenStackError) -> [Flavor] {
        if let flavorList { return flavorList }
        let listed = try await clients().nova.flavors()
        flavorList = listed
        return listed
    }

    /// The image the catalog names for database VMs (`spec.image` of the DatabaseServer): its `id` as it is, else the
    /// newest active image with its `name` and Glance `properties`. Read once per image per run.
    func imageID(_ image: VMImage) async throws(OpenStackError) -> String {
        if let id = image.id { return id }
        let filters = (image.name.map { [("name", $0)] } ?? []) + image.properties.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let query = filters.map { "\(NovaClient.escape($0.0))=\(NovaClient.escape($0.1))" }.joined(separator: "&")
        if let found = images[query] { return found }
        let answer = try await clients().session.json(
            "image", .GET, "/v2/images?\(query)&status=active&sort=created_at:desc&limit=1", operation: "find the \(image.family) image"
        )
        guard let id = answer["images"]?.arrayItems.first?["id"]?.stringValue else {
            let wanted = filters.map { "\($0.0)=\($0.1)" }.joined(separator: ", ")
            throw .resourceFailed("the cloud has no active image with \(wanted) (spec.vm.image of its catalog entry names the \(image.family) image database servers boot)")
        }
        images[query] = id
        return id
    }

    /// The project's only network; the one named `mcloud` when there are several; none when the project has none
    /// (the server then boots without a port, as on the test bed).
    func serverNetworks() async throws(OpenStackError) -> ServerRequest.Networks {
        if let network { return network }
        let networks = try await clients().neutron.networks()
        let chosen: ServerRequest.Networks
        if networks.isEmpty {
            chosen = .none
        } else if networks.count == 1 {
            chosen = .ids([networks[0].id])
        } else if let named = networks.first(where: { $0.name == "mcloud" }) {
            chosen = .ids([named.id])
        } else {
            let names = networks.map(\.name).sorted().joined(separator: ", ")
            throw .resourceFailed("the project has several networks (\(names)) and none is named mcloud: name the one database servers should use mcloud")
        }
        network = chosen
        return chosen
    }

    /// The cloud's zone of the same name as the catalog's, else nil (the cloud's default zone).
    func computeZone(_ wanted: String?) async throws(OpenStackError) -> String? {
        guard let wanted else { return nil }
        if computeZoneNames == nil { computeZoneNames = try await clients().nova.availabilityZones() }
        return computeZoneNames?.contains(wanted) == true ? wanted : nil
    }

    func volumeZone(_ wanted: String?) async throws(OpenStackError) -> String? {
        guard let wanted else { return nil }
        if volumeZoneNames == nil { volumeZoneNames = try await clients().cinder.availabilityZones() }
        return volumeZoneNames?.contains(wanted) == true ? wanted : nil
    }

    /// The smallest flavor with the vCPUs and memory a spec asks for.
    func flavor(vcpu: Int, memoryGiB: Double) async throws(OpenStackError) -> Flavor {
        try Flavor.smallest(fitting: vcpu, ramMiB: Int((memoryGiB * 1024).rounded(.up)), in: try await flavors())
    }

    /// The size a spec should be reported with: the spec's own when the cloud's flavor is the one mcloud would pick
    /// for it, otherwise the flavor's (so a resize made outside mcloud, or a changed spec, shows as a change).
    func reportedSize(spec vcpu: Int?, memoryGiB: Double?, actual: (vcpus: Int, ramMiB: Int)) async throws(OpenStackError) -> (vcpu: JSONValue, memoryGiB: JSONValue) {
        let asFound = (vcpu: JSONValue.int(actual.vcpus), memoryGiB: Self.gib(actual.ramMiB))
        guard let vcpu, let memoryGiB else { return asFound }
        guard let chosen = try? await flavor(vcpu: vcpu, memoryGiB: memoryGiB), chosen.vcpus == actual.vcpus, chosen.ramMiB == actual.ramMiB else { return asFound }
        return (.int(vcpu), memoryGiB == memoryGiB.rounded() ? .int(Int(memoryGiB)) : .number(memoryGiB))
    }

    static func gib(_ mib: Int) -> JSONValue {
        mib % 1024 == 0 ? .int(mib / 1024) : .number(Double(mib) / 1024)
    }
}
