import Foundation
import MCloudSecrets
import Testing
@testable import MCloudDatabaseEngines

/// The URI of a connection's Secret: each engine's own form, with verified TLS against the mounted CA, and none for
/// an engine whose VMs get no users (rather than another engine's URI).
struct ClientAccessTests {
    static let root = AccessUserDataTests.root

    static func edge(_ engine: Engine) -> ClientAccess.Edge {
        ClientAccess.Edge(
            application: "retail-bank", cell: "payments-db@eu", service: "payments-api@eu", engine: engine, host: "payments-db.retail-bank-eu.svc",
            port: engine.defaultPort, user: "payments_api_eu", database: "payments_api_eu", authorityPath: "/etc/mcloud/tls/payments-db/ca.crt"
        )
    }

    @Test(arguments: [
        (Engine.postgresql, "postgresql://payments_api_eu:PW@payments-db.retail-bank-eu.svc:5432/payments_api_eu?sslmode=verify-full&sslrootcert=/etc/mcloud/tls/payments-db/ca.crt&channel_binding=disable"),
        (.postgrespro, "postgresql://payments_api_eu:PW@payments-db.retail-bank-eu.svc:5432/payments_api_eu?sslmode=verify-full&sslrootcert=/etc/mcloud/tls/payments-db/ca.crt&channel_binding=disable"),
        (.redis, "rediss://payments_api_eu:PW@payments-db.retail-bank-eu.svc:6379"),
        (.mysql, "mysql://payments_api_eu:PW@payments-db.retail-bank-eu.svc:3306/payments_api_eu?ssl-mode=VERIFY_IDENTITY&ssl-ca=/etc/mcloud/tls/payments-db/ca.crt"),
        (.clickhouse, "clickhouse://payments_api_eu:PW@payments-db.retail-bank-eu.svc:9000/payments_api_eu?secure=true"),
    ])
    func eachEngineGetsItsOwnURIWithVerifiedTLS(_ engine: Engine, _ expected: String) throws {
        let access = try ClientAccess(root: Self.root, edge: Self.edge(engine))
        #expect(access.uri == expected.replacingOccurrences(of: "PW", with: access.password.value))
        #expect(access.stringData["uri"] == access.uri)
    }

    @Test(arguments: [Engine.mongodb, .arenadata])
    func anEngineWhoseVMsGetNoUsersHasNoConnection(_ engine: Engine) {
        #expect(throws: SecretsError.self) { try ClientAccess(root: Self.root, edge: Self.edge(engine)) }
    }
}
