import MCloudCore
import MCloudEngine
import MCloudManifest
import MCloudPlanner
@testable import MCloudPolicy
import MCloudProvider
import MCloudRender
@testable import MCloudViews
import Testing

/// The parts of the policy checks that the command-line table (MCloudCLITests/PolicyCommandTests) does not pin
/// down one by one: address patterns, the workload a resource belongs to, and the kinds a rule may name.
@Suite struct PolicyCheckerTests {
    static let root = String(#filePath.split(separator: "/Tests/")[0])

    @Test(arguments: [
        ("openstack.*.ManagedDatabase.*", "openstack.sel-msk.ManagedDatabase.retail-bank-ru.accounts-db", true),
        ("openstack.*.ManagedDatabase.*", "aws.aws-fra.ManagedDatabase.retail-bank-eu.accounts-db", false),
        ("*.BackupBucket.*", "aws.aws-fra.BackupBucket.retail-bank-ru.accounts-db", true),
        ("*accounts-db", "openstack.sel-msk.Volume.retail-bank-ru.accounts-db", true),
        ("*accounts-db", "openstack.sel-msk.Volume.retail-bank-ru.accounts-db.0", false),
        ("kubernetes.vk-msk.v1.Namespace.retail-bank-ru", "kubernetes.vk-msk.v1.Namespace.retail-bank-ru", true),
        ("kubernetes.vk-msk.v1.Namespace.retail-bank", "kubernetes.vk-msk.v1.Namespace.retail-bank-ru", false),
        ("*", "anything", true),
        ("a*b*c", "abc", true),
        ("a*b*c", "acb", false),
        ("ab*ba", "aba", false),
    ])
    func addressPatternsMatchWithStarsForAnyRun(_ pattern: String, _ address: String, _ matches: Bool) {
        #expect(PolicyChecker.Context.matches(address, pattern: pattern) == matches)
    }

    /// Every kind rendering makes can be named by denyDelete, so the list cannot fall behind a new kind unseen.
    @Test func everyRenderedKindCanBeNamed() throws {
        var kinds: Set<String> = []
        for example in ["retail-bank", "shop", "telemed"] {
            let model = try #require(ManifestLoader.load(paths: ["\(Self.root)/Manifests/\(example)"], providers: "\(Self.root)/Providers").model)
            let plan = try Planner.plan(model, options: Planner.Options(explanations: .none)).get()
            kinds.formUnion(DesiredResources.from(Rendering(model: model, placement: Placement(plan))).map(\.type.rawValue))
        }
        // A Kubernetes Service is named by the workload kind Service.
        #expect(kinds.subtracting(["Service"]).sorted() == Policy.resourceKinds)
    }

    /// A resource belongs to a workload by its cell label and what it is; resources of no cell belong to none.
    @Test func eachRenderedResourceBelongsToItsWorkloadKind() throws {
        let model = try #require(ManifestLoader.load(paths: ["\(Self.root)/Manifests/retail-bank"], providers: "\(Self.root)/Providers").model)
        let plan = try Planner.plan(model, options: Planner.Options(explanations: .none)).get()
        for resource in DesiredResources.from(Rendering(model: model, placement: Placement(plan))) {
            let change = ResourceChange(
                address: resource.address, provider: resource.provider, cloud: resource.cloud, type: resource.type, action: .delete, reason: "",
                before: nil, after: nil, recorded: ResourceState(
                    address: resource.address, provider: resource.provider, cloud: resource.cloud, providerID: "x",
                    attributes: Dictionary(resource.body.objectPairs, uniquingKeysWith: { first, _ in first })
                )
            )
            let expected: String? = switch resource.type.rawValue {
            case "CDNResource": "CDN"
            case "ManagedDatabase", "DatabaseServer", "Volume", "SecurityGroup", "BackupSchedule", "BackupBucket", "BackupIdentity": "Database"
            case "Namespace": nil
            case "NetworkPolicy" where resource.address.rawValue.hasSuffix(".default-deny"): nil
            default: "Service"
            }
            #expect(PolicyChecker.Context.workloadKind(change) == expected, "\(resource.address)")
        }
    }

    /// A service cell holding a governed class is checked like a database: moved abroad, the rule names it.
    @Test func requireResidencyCatchesAServiceCellHoldingTheClassPlacedAbroad() throws {
        let model = try #require(ManifestLoader.load(paths: ["\(Self.root)/Manifests/retail-bank"], providers: "\(Self.root)/Providers").model)
        let plan = try Planner.plan(model, options: Planner.Options(explanations: .none)).get()
        var document = PlanDocument(placementOnly: PlacementReport(plan), application: model.application.name, note: "")
        var placement = try #require(document.placement)
        let web = try #require(placement.cells.firstIndex { $0.name == "web@ru" })
        placement.cells[web].site = .replicas([.init(cloud: "aws-fra", count: 3)])
        document.placement = placement
        let report = PolicyChecker.check(model, document: document, recorded: nil)
        let ru = try #require(report.verdicts.first { $0.rule == "requireResidency" && $0.message.contains("audience ru") })
        #expect(!ru.passed)
        #expect(ru.offenders.map(\.name) == ["web@ru"])
        #expect(ru.offenders.first?.detail == "3 replicas on aws-fra, which is [DE, EU]")
    }
}
