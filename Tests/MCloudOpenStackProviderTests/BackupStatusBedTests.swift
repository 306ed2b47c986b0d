import Foundation
import MCloudAWS
import MCloudCore
import MCloudDatabaseEngines
import MCloudOpenStack
import MCloudOpenStackProvider
import MCloudProvider
import MCloudTestSupport
import Testing

/// A DR leg whose backups stopped, or whose primary's standbys do not follow, shows on the refresh: the BackupBucket's
/// provider reads the status object its source VM's backup job writes and the primary's replication report (on the moto bed, through the OpenStack provider's object storage) and judges it
/// against the schedule. Fails, never skips, without the beds.
@Suite(.serialized) struct BackupStatusBedTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// The status object's JSON, made at `now`; nil writes none.
        var status: (@Sendable (_ now: Int) -> String)?
        var warning: String?
        /// The primary's replication report, made at `now`; nil writes none.
        var replication: (@Sendable (_ now: Int) -> String)? = nil
        var testDescription: String { name }
    }

    static func status(success: Int?, attempt: Int, error: String?) -> String {
        func text(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "null" }
        return """
            {"server": "st.db.0", "engine": "postgresql", "version": "15", "lastAttempt": "\(BackupStatus.text(attempt))", \
            "lastSuccess": \(text(success.map(BackupStatus.text))), "object": \(text(success.map { "st.db.0/\(BackupStatus.text($0)).sql.gz" })), \
            "size": \(success == nil ? "null" : "1234"), "sha256": \(text(success == nil ? nil : String(repeating: "a", count: 64))), "error": \(text(error))}
            """
    }

    static let cases: [Case] = [
        Case(name: "no status object: no backup has reported", status: nil, warning: "backups stopped: no backup of st.db.0 has reported to the DR bucket"),
        Case(name: "a success this hour: no warning", status: { now in status(success: now - 600, attempt: now - 600, error: nil) }, warning: nil),
        Case(name: "the last success five hours ago, failing since", status: { now in status(success: now - 5 * 3600, attempt: now - 300, error: "the upload to the DR bucket failed") },
             warning: "backups stopped: the last success was at "),
        Case(name: "on time, but the last run failed", status: { now in status(success: now - 1800, attempt: now - 60, error: "the dump failed") },
             warning: "the last backup of st.db.0 failed at "),
        Case(name: "a status object mcloud did not write", status: { _ in "not json" }, warning: "the backup status object st.db.0/status.json is not one mcloud's backup job writes"),
        Case(
            name: "backups on time, but the primary's standby does not follow", status: { now in status(success: now - 600, attempt: now - 600, error: nil) },
            warning: "0 of 1 standbys of st.db.0 follow it",
            replication: { now in #"{"server": "st.db.0", "at": "\#(BackupStatus.text(now - 30))", "expected": 1, "standbys": [], "error": null}"# }
        ),
    ]

    @Test("the refreshed bucket warns when its VM's backups stopped", arguments: cases)
    func refreshWarns(_ test: Case) async throws {
        let beds = try Beds()
        let run = UUID().uuidString.prefix(8).lowercased()
        let s3 = beds.s3
        let provider = OpenStackResourceProvider(
            cloud: "bed", environment: [:],
            connect: { () throws(OpenStackError) -> OpenStackSession in
                try OpenStackSession(cloud: try CloudsYAML.load(cloud: beds.openstack["MCLOUD_TEST_OS_CLOUD"], environment: ["OS_CLIENT_CONFIG_FILE": beds.openstack["MCLOUD_TEST_OS_CLIENT_CONFIG_FILE"]]))
            },
            objectStorage: { () throws(AWSError) -> S3Client in s3 }
        )
        let application = "st-\(run)"
        let address: ResourceAddress = "openstack.bed.BackupBucket.\(application).db"
        let bucket = "mcloud-st-\(run)"
        let body: JSONValue = .object([
            ("apiVersion", .string("infrastructure.mcloud.io/v1")), ("kind", .string("BackupBucket")),
            ("metadata", .object([
                ("name", .string("\(application).db")), ("address", .string(address.rawValue)), ("cloud", .string("bed")), ("provider", .string("openstack")),
                ("labels", .object([("app.kubernetes.io/part-of", .string(application)), ("mcloud.io/cell", .string("db"))])),
            ])),
            ("spec", .object([
                ("bucketName", .string(bucket)), ("source", .string("openstack.other.DatabaseServer.st.db.0")), ("schedule", .string("0 * * * *")),
                ("retentionDays", .int(7)),
            ])),
        ])
        let desired = DesiredResource(address: address, provider: "openstack", cloud: "bed", type: "BackupBucket", body: body, dependencies: [])
        let created = try await provider.create(desired)
        let recorded = ResourceState(address: address, provider: "openstack", cloud: "bed", providerID: created.providerID, attributes: Dictionary(uniqueKeysWithValues: body.objectPairs))
        let now = Int(Date().timeIntervalSince1970)
        if let status = test.status {
            try await s3.putObject(bucket: bucket, key: "st.db.0/status.json", body: Array(status(now).utf8), contentType: "application/json")
        }
        if let replication = test.replication {
            try await s3.putObject(bucket: bucket, key: "st.db.0/replication.json", body: Array(replication(now).utf8), contentType: "application/json")
        }
        let refreshed = try await provider.refresh(application: application, desired: [desired], recorded: [recorded])
        let warnings = refreshed.first { $0.address == address }?.warnings ?? ["the bucket was not refreshed"]
        try await provider.delete(recorded)
        if let expected = test.warning {
            #expect(warnings.count == 1 && warnings[0].hasPrefix(expected), "\(warnings)")
        } else {
            #expect(warnings.isEmpty, "\(warnings)")
        }
    }
}
