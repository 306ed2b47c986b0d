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

    static let policy: ResourceAddress = "memory.lab.NetworkPolicy.shop.allow-web-to-db"

    /// What follows `server`'s addresses as rendering writes it, `server` named in its annotation: the slice with no
    /// endpoints, and the egress policy open to any address on the port.
    static func follower(_ kind: ResourceKind, of server: DesiredResource) -> DesiredResource {
        let (apiVersion, name, content): (String, String, [(String, JSONValue)]) = kind == .endpointSlice
            ? ("discovery.k8s.io/v1", "db", [("addressType", "IPv4"), ("endpoints", .array([]))])
            : ("networking.k8s.io/v1", "allow-web-to-db", [
                ("spec", .object([("egress", .array([.object([("ports", .array([.object([("protocol", "TCP"), ("port", .int(5432))])]))])]))])),
            ])
        let annotations: JSONValue = .object([(ResourceBody.endpointSourcesAnnotation, .string(server.address.rawValue))])
        let body: JSONValue = .object([
            ("apiVersion", .string(apiVersion)), ("kind", .string(kind.rawValue)),
            ("metadata", .object([("name", .string(name)), ("namespace", "shop"), ("annotations", annotations)])),
        ] + content)
        return F.desired(kind == .endpointSlice ? slice : policy, body, dependencies: [server.address], type: kind)
    }

    /// The server, and the slice and policy that follow its addresses.
    static func connection(_ server: DesiredResource) -> [DesiredResource] {
        [server, follower(.endpointSlice, of: server), follower(.networkPolicy, of: server)]
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
        _ = try await Self.apply(Self.connection(server), provider, backend)
        return (provider, backend, server)
    }

    static func liveAddresses(_ provider: MemoryProvider) -> [String] {
        provider.objects.withLock { $0[slice] }.map { ResourceBody($0).targetAddresses } ?? []
    }

    static func action(_ plan: DeploymentPlan, _ address: ResourceAddress) -> ResourceChange.Action? {
        plan.changes.first { $0.address == address }?.action
    }

    @Test func aSliceMadeWithItsServerHoldsTheAddressTheProviderReportedAndLaterPlansKeepIt() async throws {
        let (provider, backend, server) = try await Self.appliedServer(reporting: ["fd00::5", "10.0.0.5"])
        // The slice's address type is IPv4: the server's IPv6 address is left out. The policy admits that address alone.
        #expect(Self.liveAddresses(provider) == ["10.0.0.5"])
        #expect(provider.objects.withLock { $0[Self.policy] }.map { ResourceBody($0).targetAddresses } == ["10.0.0.5"])
        let recorded = try #require(try backend.read()?[Self.slice])
        #expect(ResourceBody(recorded.attributes).targetAddresses == ["10.0.0.5"])
        for refresh in [true, false] {
            let again = try await Self.plan(Self.connection(server), provider, state: try backend.read(), refresh: refresh)
            #expect(Self.action(again, Self.slice) == .noOp && Self.action(again, Self.policy) == .noOp, "refresh \(refresh)")
        }
    }

    /// A policy whose source exists but reports no IPv4 address (an endpoint that resolves nowhere, a load balancer
    /// without one yet) stays open to any address on its port, and the plan says so on it; one whose source reports
    /// an address, or is not made yet, has no warning.
    @Test(arguments: [
        ([], true), (["fd00::5"], true), (["10.0.0.5"], false),
    ] as [([String], Bool)])
    func aPolicyLeftOpenBecauseItsSourceReportsNoAddressIsPlannedWithAWarning(reporting: [String], warned: Bool) async throws {
        let provider = MemoryProvider()
        let server = Self.server("db.0")
        provider.reporting.withLock { $0[server.address] = reporting }
        let first = try await Self.plan(Self.connection(server), provider, state: nil)
        #expect(first.changes.allSatisfy { $0.warnings.isEmpty })
        let backend = try ApplierTests.lockedBackend()
        let outcome = try await ApplierTests.run(first, provider, backend: backend)
        #expect(outcome.succeeded)
        let warning = "egress stays open to any address on port 5432: \(server.address) reports no IPv4 address to narrow it to"
        for refresh in [true, false] {
            let again = try await Self.plan(Self.connection(server), provider, state: try backend.read(), refresh: refresh)
            #expect(again.changes.first { $0.address == Self.policy }?.warnings == (warned ? [warning] : []), "refresh \(refresh)")
            #expect(again.changes.filter { $0.address != Self.policy }.allSatisfy { $0.warnings.isEmpty })
        }
    }

    /// A policy that names no sources, such as a cell's own, keeps its egress rules, with or without refresh.
    @Test func aPolicyNamingNoSourcesIsLeftAsRendered() async throws {
        let (provider, backend, server) = try await Self.appliedServer()
        var own = Self.follower(.networkPolicy, of: server)
        own.address = "memory.lab.NetworkPolicy.shop.allow-web"
        own.body = ResourceBody(own.body).settingSpec(["egress"], .array([.object([("to", .array([.object([("podSelector", .object([]))])]))])])).document
        own.body = ResourceBody.setting(["metadata", "annotations"], to: nil, in: own.body)
        _ = try await Self.apply(Self.connection(server) + [own], provider, backend)
        for refresh in [true, false] {
            let again = try await Self.plan(Self.connection(server) + [own], provider, state: try backend.read(), refresh: refresh)
            #expect(Self.action(again, own.address) == .noOp, "refresh \(refresh)")
        }
    }

    /// A failover or placement move renders the slice naming the new primary's server: apply makes the server,
    /// then rewrites the slice with its address.
    @Test func aSliceNamingAnotherServerIsRewrittenWithItsAddress() async throws {
        let (provider, backend, _) = try await Self.appliedServer()
        let new = Self.server("db-b.0")
        provider.reporting.withLock { $0[new.address] = ["10.1.0.7"] }
        let plan = try await Self.apply(Self.connection(new), provider, backend)
        #expect(Self.action(plan, Self.slice) == .update)
        #expect(Self.liveAddresses(provider) == ["10.1.0.7"])
    }

    /// A replaced server comes back with another address though the slice, naming the same server, was planned as
    /// unchanged: apply updates it all the same.
    @Test func aReplacedServersNewAddressReachesASlicePlannedAsUnchanged() async throws {
        let (provider, backend, server) = try await Self.appliedServer()
        let replaced = Self.server("db.0", image: "debian-13")
        let plan = try await Self.plan(Self.connection(replaced), provider, state: try backend.read())
        #expect(Self.action(plan, replaced.address) == .replace && Self.action(plan, Self.slice) == .noOp)
        provider.reporting.withLock { $0[server.address] = ["10.0.0.6"] }
        #expect(try await ApplierTests.run(plan, provider, backend: backend).succeeded)
        #expect(Self.liveAddresses(provider) == ["10.0.0.6"])
        #expect(ResourceBody(try #require(try backend.read()?[Self.slice]).attributes).targetAddresses == ["10.0.0.6"])
    }

    /// After a switchover the state names the standby as the cell's primary: a plan rewrites the slice and the policy
    /// with the standby's address though both still name the first primary, and a switchover back restores it.
    @Test func aSwitchedOverCellsSliceAndPolicyFollowTheMemberTheStateNamesItsPrimary() async throws {
        let provider = MemoryProvider()
        let backend = try ApplierTests.lockedBackend()
        let first = Self.server("db.0"), standby = Self.server("db.1")
        provider.reporting.withLock { $0[first.address] = ["10.0.0.5"]; $0[standby.address] = ["10.0.0.6"] }
        let desired = Self.connection(first) + [standby]
        _ = try await Self.apply(desired, provider, backend)
        #expect(Self.liveAddresses(provider) == ["10.0.0.5"])
        for (primary, address) in [(standby, "10.0.0.6"), (first, "10.0.0.5")] {
            let recorded = try #require(try backend.read())
            try await StateRecorder(state: recorded, backend: backend).record(primary: primary.address, of: first.address)
            let plan = try await Self.apply(desired, provider, backend)
            #expect(Self.action(plan, Self.slice) == .update && Self.action(plan, Self.policy) == .update)
            #expect(Self.liveAddresses(provider) == [address])
            #expect(provider.objects.withLock { $0[Self.policy] }.map { ResourceBody($0).targetAddresses } == [address])
        }
        #expect(try backend.read()?.primaries.isEmpty == true)
    }
}
