import Foundation
import MCloudCore
import MCloudDatabaseEngines
import MCloudProvider
@testable import MCloudRender
import MCloudSecrets
import MCloudTestSupport
import Testing

/// Each connection to a database VM with users gives its dependent one Secret, written only as a SOPS document: it
/// decrypts to the connection's names and a URI, its password is the one whose verifier the server gets, and no
/// plaintext value is anywhere in the tree.
@Suite struct ConnectionSecretTests {
    struct Rendered {
        var rendering: Rendering
        var tree: RenderedTree
        /// By path: each Secret's decrypted data.
        var secrets: [String: KubernetesSecret]
    }

    static func rendered(_ example: String) throws -> Rendered {
        let (model, plan) = try RenderFixtures.example(example)
        let rendering = Rendering(model: model, placement: Placement(plan))
        let tree = try rendering.sealedTree(with: Bootstrap(model: model, rendering: rendering, source: RenderFixtures.source), sealing: RenderFixtures.sealing(model))
        let decryptor = SopsDecryptor(identity: try RenderFixtures.identity())
        var secrets: [String: KubernetesSecret] = [:]
        for file in tree.files where file.path.hasSuffix(".secret.yaml") {
            secrets[file.path] = try decryptor.decrypt(file.contents)
        }
        return Rendered(rendering: rendering, tree: tree, secrets: secrets)
    }

    /// The retail bank's Redis caches on VMs: `web@eu` in aws-irl and gcore-lux, `fx-rates` in ps-ala and sel-msk.
    @Test func theRetailBanksSecretsDecryptToTheConnectionsNamesAndARedisURI() throws {
        let rendered = try Self.rendered("retail-bank")
        #expect(rendered.secrets.keys.sorted() == [
            "clusters/aws-irl/retail-bank-eu/sessions-redis-web.secret.yaml", "clusters/gcore-lux/retail-bank-eu/sessions-redis-web.secret.yaml",
            "clusters/ps-ala/retail-bank/fx-cache-fx-rates.secret.yaml", "clusters/sel-msk/retail-bank/fx-cache-fx-rates.secret.yaml",
        ])
        let secret = try #require(rendered.secrets["clusters/aws-irl/retail-bank-eu/sessions-redis-web.secret.yaml"])
        #expect(secret.name == "sessions-redis-web" && secret.namespace == "retail-bank-eu")
        #expect(secret.stringData.keys.sorted() == ["ca.crt", "database", "host", "password", "port", "uri", "user"])
        let password = try #require(secret.stringData["password"])
        #expect(password.count == GeneratedPassword.length)
        #expect(secret.stringData["host"] == "sessions-redis.retail-bank-eu.svc")
        #expect(secret.stringData["user"] == "web_eu" && secret.stringData["database"] == "web_eu" && secret.stringData["port"] == "6379")
        #expect(secret.stringData["uri"] == "rediss://web_eu:\(password)@sessions-redis.retail-bank-eu.svc:6379")
        #expect(secret.stringData["ca.crt"]?.hasPrefix("-----BEGIN CERTIFICATE-----\n") == true)
        // The same edge in two clusters is one user: the same password.
        #expect(rendered.secrets["clusters/gcore-lux/retail-bank-eu/sessions-redis-web.secret.yaml"]?.stringData == secret.stringData)
    }

    /// The host is the name the endpoints ConfigMap gives, and the Deployment reads the Secret and mounts its CA
    /// where a PostgreSQL URI names it.
    @Test func telemedsPostgreSQLURIVerifiesTheServerAgainstTheMountedCA() throws {
        let rendered = try Self.rendered("telemed")
        let postgres = rendered.rendering.secrets.filter { $0.edge.engine == .postgresql }
        try #require(!postgres.isEmpty)
        for connection in postgres {
            let secret = try #require(rendered.secrets["clusters/\(connection.cloud)/\(connection.path)"])
            let data = secret.stringData
            let password = try #require(data["password"])
            let uri = "postgresql://\(data["user"] ?? ""):\(password)@\(data["host"] ?? ""):5432/\(data["database"] ?? "")"
                + "?sslmode=verify-full&sslrootcert=\(connection.mountPath)/ca.crt&channel_binding=disable"
            #expect(data["uri"] == uri)
            let objects = try #require(rendered.rendering.clusters.first { $0.cloud == connection.cloud }?.objects)
            let configMaps = objects.filter { $0.kind == "ConfigMap" && $0.namespace == connection.namespace }
            #expect(configMaps.contains { $0.body["data"]?["\(connection.environmentPrefix)_HOST"]?.stringValue == data["host"] })
            let deployments = objects.filter { $0.kind == "Deployment" && $0.namespace == connection.namespace }
            let text = deployments.map { BlockYAMLWriter.document($0.body) }.joined()
            #expect(text.contains("name: \(connection.environmentPrefix)_URI\n          valueFrom:\n            secretKeyRef:\n              name: \(connection.name)\n"))
            #expect(text.contains("mountPath: \(connection.mountPath)\n"))
        }
    }

    /// The Secret's password is the one the database VM's user data holds the verifier of: both come from the same
    /// derivation, from the rendered `spec.access` of the server, one at render time and one at create time.
    @Test(arguments: ["retail-bank", "telemed"])
    func theSecretsPasswordMatchesTheVerifierTheServerGets(_ example: String) throws {
        let rendered = try Self.rendered(example)
        let root = SecretRoot(identity: try RenderFixtures.identity())
        let servers = DesiredResources.from(rendered.rendering).filter { $0.type == .databaseServer && ResourceBody($0.body).databaseAccess != nil }
        var checked = 0
        for connection in rendered.rendering.secrets {
            let server = try #require(servers.first { ResourceBody($0.body).databaseAccess?.cell == connection.database })
            let access = try #require(ResourceBody(server.body).databaseAccess)
            #expect(access.names.contains(connection.edge.host), "\(connection.edge.host) is not a name of the server's certificate")
            let engine = try #require(Engine(named: server.body.value(at: ["spec", "engine"])?.stringValue ?? ""))
            let derived = try ServerAccess.derive(root: root, application: connection.edge.application, server: server.address.rawValue, engine: engine, access: access)
            let user = try #require(derived.users.first { $0.client.service == connection.service })
            let password = try #require(rendered.secrets["clusters/\(connection.cloud)/\(connection.path)"]?.stringData["password"])
            let scheme = try #require(engine.passwordScheme)
            #expect(try PasswordVerifier.verifier(scheme, password: password, salt: Self.salt(of: user.verifier)) == user.verifier)
            #expect(user.name == connection.edge.user)
            checked += 1
        }
        #expect(checked == rendered.rendering.secrets.count && checked > 0)
    }

    /// The global `reports` reaches `orders-db@eu` as `orders-db-eu.shop.svc`, the name its Secret's host and its
    /// ConfigMap give: the server's certificate must name it too, or `verify-full` fails.
    @Test func aGlobalCellsHostForOneAudiencesDatabaseIsANameOfTheServersCertificate() throws {
        var model = try RenderFixtures.shop()
        for index in model.clouds.indices { model.clouds[index].endpoints.kubernetesEgressCIDRs = ["203.0.113.\(16 * index)/28"] }
        let rendering = Rendering(model: model, placement: RenderFixtures.shopPlacement)
        let secret = try #require(rendering.secrets.first { $0.service == "reports" && $0.database == "orders-db@eu" })
        #expect(secret.edge.host == "orders-db-eu.shop.svc")
        let server = try #require(DesiredResources.from(rendering).first { $0.type == .databaseServer && ResourceBody($0.body).databaseAccess?.cell == "orders-db@eu" })
        let names = ResourceBody(server.body).databaseAccess?.names ?? []
        #expect(names.contains("orders-db-eu.shop.svc") && names.contains("orders-db-eu.shop.svc.cluster.local"), "\(names)")
    }

    /// A SCRAM verifier's salt (`SCRAM-SHA-256$4096:<salt>$...`); other schemes have none.
    static func salt(of verifier: String) throws -> [UInt8] {
        guard verifier.hasPrefix("SCRAM-SHA-256$") else { return [] }
        let salt = try #require(verifier.split(separator: "$")[1].split(separator: ":").last)
        return Array(try #require(Data(base64Encoded: String(salt))))
    }

    @Test(arguments: RenderFixtures.examples)
    func noPlaintextValueOfASecretIsAnywhereInTheTree(_ example: String) throws {
        let rendered = try Self.rendered(example)
        let values = Set(rendered.secrets.values.flatMap { [$0.stringData["password"], $0.stringData["uri"]].compactMap { $0 } })
        #expect(values.count == 2 * Set(rendered.rendering.secrets.map { "\($0.database) \($0.service)" }).count)
        for file in rendered.tree.files {
            for value in values {
                #expect(!file.contents.contains(value), "\(file.path) holds a plaintext secret value")
            }
        }
    }

    @Test func theIndependentSopsReaderDecryptsARenderedSecret() async throws {
        let rendered = try Self.rendered("retail-bank")
        let file = try #require(rendered.tree.files.first { $0.path.hasSuffix(".secret.yaml") })
        let path = NSTemporaryDirectory() + "mcloud-rendered-\(UUID().uuidString).secret.yaml"
        try file.contents.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = "\(RenderFixtures.root)/Tests/MCloudSecretsTests/Fixtures/sops_decrypt.py"
        let run = try await Command.run("/usr/bin/python3", [reader, path, "\(RenderFixtures.root)/Tests/MCloudCLITests/Fixtures/age.key"])
        #expect(run.succeeded, "sops_decrypt.py: \(run.stderr)")
        let decoded = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(decoded?["stringData"] as? [String: String] == rendered.secrets[file.path]?.stringData)
    }

    /// Flux decrypts a cluster's folder only where it holds Secrets; the others' Kustomizations stay as they were.
    @Test func onlyAClusterWithSecretsGetsSopsDecryption() throws {
        let rendered = try Self.rendered("retail-bank")
        let withSecrets = Set(rendered.rendering.secrets.map(\.cloud))
        for file in rendered.tree.files where file.path.hasPrefix("bootstrap/flux/") && file.path.hasSuffix(".kustomization.yaml") {
            let cloud = try #require(rendered.rendering.clusters.map(\.cloud).first { file.path.hasSuffix("-\($0).kustomization.yaml") })
            #expect(file.contents.contains("  decryption:\n    provider: sops\n    secretRef:\n      name: sops-age\n") == withSecrets.contains(cloud), "\(file.path)")
        }
        #expect(withSecrets.count > 1)
    }

    /// A cluster's recipient from the catalog is one more recipient of its Secrets, and only of its own.
    @Test func aClustersOwnRecipientOpensItsSecretsAndNoOtherClusters() throws {
        var (model, plan) = try RenderFixtures.example("retail-bank")
        let cluster = try AgeIdentity(secretKey: [UInt8](repeating: 9, count: 32))
        for index in model.clouds.indices where model.clouds[index].name == "aws-irl" {
            model.clouds[index].endpoints.kubernetesAgeRecipient = cluster.recipient.encoded
        }
        let rendering = Rendering(model: model, placement: Placement(plan))
        let tree = try rendering.sealedTree(with: Bootstrap(model: model, rendering: rendering, source: RenderFixtures.source), sealing: RenderFixtures.sealing(model))
        let files = tree.files.filter { $0.path.hasSuffix(".secret.yaml") }
        for file in files {
            if file.path.hasPrefix("clusters/aws-irl/") {
                #expect(try SopsDecryptor(identity: cluster).decrypt(file.contents).stringData["password"] != nil)
            } else {
                #expect(throws: SecretsError.noMatchingIdentity) { try SopsDecryptor(identity: cluster).decrypt(file.contents) }
            }
        }
        #expect(files.contains { $0.path.hasPrefix("clusters/aws-irl/") })
    }

    @Test func aRenderingWithSecretsAndNoIdentityIsRefused() throws {
        let (model, plan) = try RenderFixtures.example("retail-bank")
        let rendering = Rendering(model: model, placement: Placement(plan))
        #expect(throws: SecretsError.self) {
            try rendering.sealedTree(with: Bootstrap(model: model, rendering: rendering, source: RenderFixtures.source), sealing: nil)
        }
    }
}
