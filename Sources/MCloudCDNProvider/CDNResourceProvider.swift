public import MCloudCDN
public import MCloudCore
public import MCloudProvider

/// The engine's `cdn` provider for one cloud: each `CDNResource` body becomes one resource on the cloud's CDN
/// (G-Core-style API or CloudFront), recognised by the marker it carries.
public struct CDNResourceProvider: ResourceProvider {
    public let name = ProviderName.cdn
    public let cloud: String
    private let services: OnFirstUse<any CDNService, ProviderError>

    /// `connect` makes the CDN client on first use, so a plan that reads nothing from this CDN needs no credentials.
    public init(cloud: String, connect: @escaping @Sendable () throws(ProviderError) -> any CDNService) {
        self.cloud = cloud
        services = OnFirstUse(connect)
    }

    public func refresh(application: String, desired: [DesiredResource], recorded: [ResourceState]) async throws(ProviderError) -> [ObservedResource] {
        let service = try await services.value()
        let deployments: [CDNDeployment]
        do throws(CDNError) {
            deployments = try await service.list()
        } catch {
            throw Self.providerError(error)
        }
        var known: [ResourceAddress: [JSONValue]] = [:]
        for resource in recorded { known[resource.address, default: []].append(resource.attributes) }
        for resource in desired { known[resource.address, default: []].append(resource.body) }
        return deployments.compactMap { deployment -> ObservedResource? in
            guard let marker = deployment.marker, marker.application == application, Self.cloud(of: marker.address) == cloud else { return nil }
            return ObservedResource(
                address: ResourceAddress(marker.address), providerID: deployment.id,
                attributes: CDNResourceBody.attributes(of: deployment, known: known[ResourceAddress(marker.address)] ?? []), isBeingDeleted: deployment.isDeleting
            )
        }.sorted { $0.address < $1.address }
    }

    /// Every field of a CDN resource changes in place; its name and cloud are in its address.
    public func replacementReasons(desired: DesiredResource, current: JSONValue) -> [String] {
        []
    }

    public func create(_ resource: DesiredResource) async throws(ProviderError) -> ObservedResource {
        try await ensure(resource, id: nil)
    }

    public func update(_ resource: DesiredResource, recorded: ResourceState) async throws(ProviderError) -> ObservedResource {
        try await ensure(resource, id: recorded.providerID.isEmpty ? nil : recorded.providerID)
    }

    public func delete(_ resource: ResourceState) async throws(ProviderError) {
        let service = try await services.value()
        do throws(CDNError) {
            var id = resource.providerID
            if id.isEmpty, let found = try await service.list().first(where: { $0.marker?.address == resource.address.rawValue }) { id = found.id }
            guard !id.isEmpty else { return }
            try await service.delete(id: id)
        } catch {
            throw Self.providerError(error)
        }
    }

    private func ensure(_ resource: DesiredResource, id: String?) async throws(ProviderError) -> ObservedResource {
        let service = try await services.value()
        do throws(CDNError) {
            let body = try CDNResourceBody(resource.body, address: resource.address)
            let deployment = try await service.ensure(body.spec(cloud: cloud), id: id)
            return ObservedResource(address: resource.address, providerID: deployment.id, attributes: CDNResourceBody.attributes(of: deployment, known: [resource.body]))
        } catch {
            throw Self.providerError(error)
        }
    }

    /// `cdn.<cloud>.CDNResource.<name>` -> `<cloud>`.
    static func cloud(of address: String) -> String? {
        let parts = address.split(separator: ".", maxSplits: 2)
        return parts.count == 3 && parts[0] == ProviderName.cdn.rawValue ? String(parts[1]) : nil
    }

    static func providerError(_ error: CDNError) -> ProviderError {
        switch error.kind {
        case .unauthorized: return ProviderError(.unauthorized, error.description)
        case .capacity: return ProviderError(.capacity, error.description)
        case .conflict: return ProviderError(.conflict, error.description)
        case .configuration: return ProviderError(.unavailable, error.description)
        case .notFound, .failed: return ProviderError(.failed, error.description)
        }
    }
}
