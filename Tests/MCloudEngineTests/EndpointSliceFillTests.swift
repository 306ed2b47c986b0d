import MCloudCore
@testable import MCloudEngine
import MCloudProvider
import MCloudState
import Synchronization
import Testing

/// A connection's EndpointSlice, rendered empty, holds the address the provider reports for the server it names:
/// filled when both are made in one apply, kept by later plans, and rewritten when the server moves or is replaced.
@Suite struct EndpointSliceFillTests {
    typealias F = EngineFixtures

    static let slice: ResourceAddress = "memory.lab.EndpointSlice.shop.db"

    static func server(_ name: String, image: String = "debian-12") -> DesiredResource {
        let body: JSONValue = .object([
            ("apiVersion", "infrastructure.mcloud.io/v1"), ("kind", "DatabaseServer"), ("metadata", .object([("name", .string(name))])),
            ("spec", .object([("engine", "postgresql"), ("selector", .string(image))])),
        ])
        return F.desired(ResourceAddress("memory.lab.DatabaseServer.shop.\(name)"), body, type: .databaseServer)
    }

    /// The slice as rendering writes it: no endpoints, its server named in the annotation.
    static func slice(of server: DesiredResource) -> DesiredResource {
        let body: JSONValue = .object([
            ("apiVersion", "discovery.k8s.io/v1"), ("kind", "EndpointSlice"),
            ("metadata", .object([
                ("name", "db"), ("namespace", "shop"),
                ("annotations", .object([(ResourceBody.endpointSourcesAnnotation, .string(server.address.rawValue))])),
            ])),
            ("addressType", "IPv4"), ("endpoints", .array([])),
        ])
        return F.desired(Self.slice, body, dependencies: [server.address], type: .endpointSlice)
    }

    static func plan(_ desired: [DesiredResource], _ provider: MemoryProvider, state: State?, refresh: Bool = true) async throws -> DeploymentPlan {
        let request = PlanMaker.Request(operation: .apply, application: "shop", desired: desired, state: state, refresh: refresh, inputDigest: "sha256:0")
        return try await PlanMaker.plan(request, clouds: ["lab": F.lab], catalog: provider)
    }

    static func apply(_ desired: [DesiredResource], _ provider: MemoryProvider, _ backend: FileStateBackend) async throws -> DeploymentPlan {
        let plan = try await plan(desired, provider, state: try backend.read())
        let outcome = try await ApplierTests.run(plan, provider, backend: backend)
        #expect(outcome.succeeded)
        return plan
    }

    /// The server `db.0`, reporting `addresses`, applied with its slice.
    static func appliedServer(reporting addresses: [String] = ["10.0.0.5"]) async throws -> (MemoryProvider, FileStateBackend, DesiredResource) {
        let provider = MemoryProvider()
        let backend = try ApplierTests.lockedBackend()
        let server = Self.server("db.0")
        provider.reporting.withLock { $0[server.address] = addresses }
        _ = try await Self.apply([server, Self.slice(of: server)], provider, backend)
        return (provider, backend, server)
    }

    static func liveAddresses(_ provider: MemoryProvider) -> [String] {
        provider.objects.withLock { $0[slice] }.map { ResourceBody($0).endpointAddresses } ?? []
    }

    static func action(_ plan: DeploymentPlan, _ address: ResourceAddress) -> ResourceChange.Action? {
        plan.changes.first { $0.address == address }?.action
    }

    @Test func aSliceMadeWithItsServerHoldsTheAddressTheProviderReportedAndLaterPlansKeepIt() async throws {
        let (provider, backend, server) = try await Self.appliedServer(reporting: ["fd00::5", "10.0.0.5"])
        // The slice's address type is IPv4: the server's IPv6 address is left out.
        #expect(Self.liveAddresses(provider) == ["10.0.0.5"])
        let recorded = try #require(try backend.read()?[Self.slice])
        #expect(ResourceBody(recorded.attributes).endpointAddresses == ["10.0.0.5"])
        for refresh in [true, false] {
            let again = try await Self.plan([server, Self.slice(of: server)], provider, state: try backend.read(), refresh: refresh)
            #expect(Self.action(again, Self.slice) == .noOp, "refresh \(refresh)")
        }
    }

    /// A failover or placement move renders the slice naming the new primary's server: apply makes the server,
    /// then rewrites the slice with its address.
    @Test func aSliceNamingAnotherServerIsRewrittenWithItsAddress() async throws {
        let (provider, backend, _) = try await Self.appliedServer()
        let new = Self.server("db-b.0")
        provider.reporting.withLock { $0[new.address] = ["10.1.0.7"] }
        let plan = try await Self.apply([new, Self.slice(of: new)], provider, backend)
        #expect(Self.action(plan, Self.slice) == .update)
        #expect(Self.liveAddresses(provider) == ["10.1.0.7"])
    }

    /// A replaced server comes back with another address though the slice, naming the same server, was planned as
    /// unchanged: apply updates it all the same.
    @Test func aReplacedServersNewAddressReachesASlicePlannedAsUnchanged() async throws {
        let (provider, backend, server) = try await Self.appliedServer()
        let replaced = Self.server("db.0", image: "debian-13")
        let plan = try await Self.plan([replaced, Self.slice(of: replaced)], provider, state: try backend.read())
        #expect(Self.action(plan, replaced.address) == .replace && Self.action(plan, Self.slice) == .noOp)
        provider.reporting.withLock { $0[server.address] = ["10.0.0.6"] }
        #expect(try await ApplierTests.run(plan, provider, backend: backend).succeeded)
        #expect(Self.liveAddresses(provider) == ["10.0.0.6"])
        #expect(ResourceBody(try #require(try backend.read()?[Self.slice]).attributes).endpointAddresses == ["10.0.0.6"])
    }
}
