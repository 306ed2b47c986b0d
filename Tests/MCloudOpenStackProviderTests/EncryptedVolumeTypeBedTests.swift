import Foundation
import MCloudAWS
import MCloudCore
import MCloudHTTP
import MCloudOpenStack
import MCloudOpenStackProvider
import MCloudProvider
import MCloudTestSupport
import Testing

/// A Volume made by the provider of a cloud whose catalog names an encrypted volume type (`spec.vm.encryptedVolumeType`,
/// docs/security.md M6) is of that type, as Cinder reports it. The OpenStack bed's Cinder has no key manager, so the
/// type the admin makes here carries no encryption spec: what is tested is that the provider asks for the catalog's
/// type and Cinder gives it. Fails, never skips, without the bed (openstack.sh up).
@Suite(.serialized) struct EncryptedVolumeTypeBedTests {
    @Test func aVolumeIsMadeWithTheCatalogsEncryptedType() async throws {
        let directories = ProcessInfo.processInfo.environment
        let openstack = try TestBedEnvironment.load(
            directory: directories["MCLOUD_OPENSTACK_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/openstack", start: "scripts/testbed/openstack.sh up"
        )
        let configFile = openstack["MCLOUD_TEST_OS_CLIENT_CONFIG_FILE"], cloudName = openstack["MCLOUD_TEST_OS_CLOUD"]
        let run = UUID().uuidString.prefix(8).lowercased()
        let typeName = "mcloud-bed-luks-\(run)"
        let admin = try OpenStackSession(cloud: try CloudsYAML.load(cloud: openstack["MCLOUD_TEST_OS_ADMIN_CLOUD"], environment: ["OS_CLIENT_CONFIG_FILE": configFile]))
        let made = try await admin.json(
            "block-storage", .POST, "/types", body: .object([("volume_type", .object([("name", .string(typeName))]))]), operation: "create volume type"
        )
        let typeID = try #require(made["volume_type"]?["id"]?.stringValue)
        let provider = OpenStackResourceProvider(
            cloud: "bed", environment: [:],
            connect: { () throws(OpenStackError) -> OpenStackSession in
                try OpenStackSession(cloud: try CloudsYAML.load(cloud: cloudName, environment: ["OS_CLIENT_CONFIG_FILE": configFile]))
            },
            objectStorage: { () throws(AWSError) -> S3Client in throw .configuration("this test makes no bucket") },
            encryptedVolumeType: typeName
        )
        let address: ResourceAddress = "openstack.bed.Volume.ev-\(run).db.0"
        let body: JSONValue = .object([
            ("apiVersion", .string("infrastructure.mcloud.io/v1")), ("kind", .string("Volume")),
            ("metadata", .object([
                ("name", .string("ev-\(run).db.0")), ("address", .string(address.rawValue)), ("cloud", .string("bed")), ("provider", .string("openstack")),
                ("labels", .object([("app.kubernetes.io/part-of", .string("ev-\(run)")), ("mcloud.io/cell", .string("db"))])),
            ])),
            ("spec", .object([("sizeGiB", .int(1))])),
        ])
        let desired = DesiredResource(address: address, provider: "openstack", cloud: "bed", type: "Volume", body: body, dependencies: [])
        let created = try await provider.create(desired)
        let cinder = CinderClient(session: try OpenStackSession(cloud: try CloudsYAML.load(cloud: cloudName, environment: ["OS_CLIENT_CONFIG_FILE": configFile])))
        let volume = try await cinder.volume(created.providerID)
        #expect(volume.volumeType == typeName)

        try await provider.delete(ResourceState(
            address: address, provider: "openstack", cloud: "bed", providerID: created.providerID,
            attributes: Dictionary(uniqueKeysWithValues: created.attributes.objectPairs)
        ))
        _ = try await admin.json("block-storage", .DELETE, "/types/\(typeID)", expect: [202], operation: "delete volume type")
    }
}
