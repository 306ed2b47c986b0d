import Foundation
import MCloudDatabaseEngines
import MCloudSecrets
import Testing

/// A connection Secret that `apply` writes names its edge in one annotation, read back by the Kubernetes provider to
/// derive the values: the same edge is the same text, and an annotation that is not one is an error naming its fault.
@Suite struct ClientAccessAnnotationTests {
    static let edge = ClientAccess.Edge(
        application: "retail-bank", cell: "payments-db@eu", service: "payments-api@eu", engine: .postgresql, host: "payments-db.retail-bank-eu.svc",
        port: 5432, user: "payments_api_eu", database: "payments_api_eu", authorityPath: "/etc/mcloud/tls/payments-db/ca.crt", generation: 2
    )

    @Test func anEdgeReadsBackFromItsAnnotationAsItWasWritten() throws {
        #expect(try ClientAccess.Edge(annotationValue: Self.edge.annotationValue) == Self.edge)
        #expect(Self.edge.annotationValue.hasPrefix(#"{"application":"retail-bank","cell":"payments-db@eu","#))
    }

    @Test(arguments: [
        ("{", "the mcloud.io/connection annotation is not JSON"),
        (#"{"application":"a","engine":"postgresql"}"#, "the mcloud.io/connection annotation has no cell"),
        (#"{"application":"a","cell":"c","service":"s","engine":"oracle"}"#, "names the engine oracle, which mcloud does not know"),
    ])
    func anAnnotationMcloudDidNotWriteIsRefusedWithItsFault(_ text: String, _ message: String) {
        #expect {
            try ClientAccess.Edge(annotationValue: text)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func aPortOutOfRangeIsRefused() {
        let text = Self.edge.annotationValue.replacingOccurrences(of: #""port":5432"#, with: #""port":70000"#)
        #expect(throws: SecretsError.invalidInput(reason: "the mcloud.io/connection annotation's port is not a whole number in 1...65535")) {
            try ClientAccess.Edge(annotationValue: text)
        }
    }

    /// Trove's MySQL: its clients encrypt without a CA of mcloud's to check the server against.
    static let unverified = ClientAccess.Edge(
        application: "shop", cell: "orders-db@eu", service: "orders@eu", engine: .mysql, host: "orders-db.shop-eu.svc", port: 3306,
        user: "orders_eu", database: "orders_eu", authorityPath: "/etc/mcloud/tls/orders-db/ca.crt", tls: .unverified
    )

    @Test func anUnverifiedEdgeSaysSoInItsAnnotationAndAVerifiedOneAsBeforeIt() throws {
        #expect(try ClientAccess.Edge(annotationValue: Self.unverified.annotationValue) == Self.unverified)
        #expect(Self.unverified.annotationValue.hasSuffix(#","tls":"unverified"}"#))
        #expect(!Self.edge.annotationValue.contains(#""tls":"#))
        let text = Self.edge.annotationValue.replacingOccurrences(of: "}", with: #","tls":"maybe"}"#)
        #expect(throws: SecretsError.invalidInput(reason: "the mcloud.io/connection annotation's tls is maybe, neither verified nor unverified")) {
            try ClientAccess.Edge(annotationValue: text)
        }
    }

    @Test(arguments: [edge, unverified])
    func theDataKeysAreTheKeysOfTheDerivedData(_ edge: ClientAccess.Edge) throws {
        let access = try ClientAccess(root: SecretRoot(identity: AgeIdentity(secretKey: [UInt8](repeating: 3, count: 32))), edge: edge)
        #expect(ClientAccess.dataKeys(edge) == access.stringData.keys.sorted())
    }

    @Test func anUnverifiedMySQLEdgeAsksForEncryptionWithoutACA() throws {
        let access = try ClientAccess(root: SecretRoot(identity: AgeIdentity(secretKey: [UInt8](repeating: 3, count: 32))), edge: Self.unverified)
        #expect(access.uri == "mysql://orders_eu:\(access.password.value)@orders-db.shop-eu.svc:3306/orders_eu?ssl-mode=REQUIRED")
        #expect(access.authorityPEM == nil && access.stringData[ClientAccess.authorityKey] == nil)
    }
}
