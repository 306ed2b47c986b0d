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

    @Test func theDataKeysAreTheKeysOfTheDerivedData() throws {
        let access = try ClientAccess(root: SecretRoot(identity: AgeIdentity(secretKey: [UInt8](repeating: 3, count: 32))), edge: Self.edge)
        #expect(ClientAccess.dataKeys == access.stringData.keys.sorted())
    }
}
