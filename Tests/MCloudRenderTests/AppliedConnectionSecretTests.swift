import MCloudCore
import MCloudDatabaseEngines
import MCloudProvider
@testable import MCloudRender
import MCloudSecrets
import Testing

/// `apply` writes each connection Secret itself: a desired resource holding the edge and no value, applied before the
/// Deployment that reads it. The Kubernetes provider derives the values (`ConnectionSecretBedTests`).
@Suite struct AppliedConnectionSecretTests {
    static func desired(_ example: String) throws -> (rendering: Rendering, resources: [DesiredResource]) {
        let (model, plan) = try RenderFixtures.example(example)
        let rendering = Rendering(model: model, placement: Placement(plan))
        return (rendering, DesiredResources.from(rendering))
    }

    @Test func eachConnectionSecretIsADesiredResourceWithItsEdgeAndNoValue() throws {
        let (rendering, resources) = try Self.desired("retail-bank")
        let secrets = resources.filter { $0.type == .secret }
        #expect(secrets.map(\.address.rawValue) == [
            "kubernetes.aws-irl.v1.Secret.retail-bank-eu.sessions-redis-web", "kubernetes.gcore-lux.v1.Secret.retail-bank-eu.sessions-redis-web",
            "kubernetes.ps-ala.v1.Secret.retail-bank.fx-cache-fx-rates", "kubernetes.sel-msk.v1.Secret.retail-bank.fx-cache-fx-rates",
        ])
        for (resource, connection) in zip(secrets, rendering.secrets) {
            let annotation = try #require(resource.body.value(at: ["metadata", "annotations", ClientAccess.Edge.annotation])?.stringValue)
            #expect(try ClientAccess.Edge(annotationValue: annotation) == connection.edge)
            #expect(resource.body["data"] == .object(ClientAccess.dataKeys(connection.edge).map { ($0, SecretRedaction.marker) }))
            #expect(resource.body.value(at: ["metadata", "labels", ResourceLabels.managedBy])?.stringValue == ResourceLabels.manager)
            #expect(resource.body.value(at: ["metadata", "labels", ResourceLabels.partOf])?.stringValue == "retail-bank")
        }
    }

    @Test func theDeploymentThatReadsASecretIsAppliedAfterIt() throws {
        let (_, resources) = try Self.desired("retail-bank")
        let web = try #require(resources.first { $0.address.rawValue == "kubernetes.aws-irl.apps/v1.Deployment.retail-bank-eu.web" })
        #expect(web.dependencies.map(\.rawValue).contains("kubernetes.aws-irl.v1.Secret.retail-bank-eu.sessions-redis-web"))
        let secret = try #require(resources.first { $0.address.rawValue == "kubernetes.aws-irl.v1.Secret.retail-bank-eu.sessions-redis-web" })
        #expect(secret.dependencies.map(\.rawValue) == ["kubernetes.aws-irl.v1.Namespace.retail-bank-eu"])
    }

    @Test(arguments: RenderFixtures.examples)
    func noDesiredResourceHoldsAPassword(_ example: String) throws {
        let (rendering, resources) = try Self.desired(example)
        let root = SecretRoot(identity: try RenderFixtures.identity())
        let everything = resources.map { $0.body.serialized(pretty: false) }.joined()
        for secret in rendering.secrets {
            let access = try ClientAccess(root: root, edge: secret.edge)
            #expect(!everything.contains(access.password.value), "\(secret.path)")
        }
    }

    @Test func theGitOpsTreeKeepsOnlyTheEncryptedSecrets() throws {
        let (rendering, _) = try Self.desired("retail-bank")
        #expect(!rendering.tree.files.contains { $0.contents.contains(ClientAccess.Edge.annotation + ":") })
    }

    /// An annotation whose name looks secret would be redacted in the state and differ from the cluster's on every
    /// plan: drift that never settles.
    @Test(arguments: RenderFixtures.examples)
    func noLabelOrAnnotationMcloudWritesLooksSecret(_ example: String) throws {
        let (_, resources) = try Self.desired(example)
        for resource in resources where resource.provider == .kubernetes {
            let metadata = [resource.body["metadata"], resource.body.value(at: ["spec", "template", "metadata"])].compactMap { $0 }
            for part in metadata {
                let keys = ["labels", "annotations"].flatMap { part[$0]?.objectPairs.map(\.0) ?? [] }
                #expect(!keys.contains(where: SecretRedaction.isSecret), "\(resource.address): \(keys.filter(SecretRedaction.isSecret))")
            }
        }
    }
}
