import Foundation
import MCloudCore
import MCloudPlanner
@testable import MCloudRender
import Testing

/// What `plan` says of the database VMs of the bundled examples (docs/security.md, H2 and M6): a DR leg without a
/// backup identity is an error naming the cell, the bucket and the cloud; a leg whose keys cannot be narrowed to its
/// bucket, and personal data on an OpenStack cloud's volumes without an encrypted type, are warnings on the cell.
@Suite struct DatabaseVMReviewTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var example: String
        /// Changes to the bundled catalog, by cloud.
        var change: @Sendable (inout Cloud) -> Void = { _ in }
        var errors: [String] = []
        var warnings: [String]
        var testDescription: String { name }
    }

    static let redisVolumes = "sessions-redis@eu: its personal data lies on volumes of gcore-lux's default Cinder type, encrypted only if that type is: gcore-lux names no spec.vm.encryptedVolumeType in its catalog entry (Providers/gcore.yaml:4:19)"
    static func telemedLeg(_ cell: String, _ bucket: String) -> String {
        "\(cell): DR leg \(bucket) in sel-msk: the VM gets the keys of profile sel-msk-backup unscoped: sel-msk's S3-compatible storage gives EC2-style keys the rights of their whole project, and mcloud cannot narrow them to one bucket there, so whoever reads them on the VM reaches every bucket they reach"
    }

    static func selNoProfile(_ cell: String, _ bucket: String) -> String {
        "\(cell): its DR leg's bucket \(bucket) in sel-msk has no backup identity for the VM's backup job: set endpoints.objectStorage.backupProfile in sel-msk's catalog entry (Providers/selectel.yaml:38:19) to a profile of the operator's AWS files whose keys reach its backup buckets only; a VM never gets mcloud's own keys"
    }

    static let cases: [Case] = [
        // Issue 32, H2 step 2: an AWS leg gets a user of its own, so it needs no backup profile and warns of no keys.
        Case(name: "a VM on Gcore keeping its leg in AWS", example: "retail-bank", warnings: [redisVolumes]),
        Case(name: "Gcore naming an encrypted volume type", example: "retail-bank", change: { cloud in
            if cloud.name == "gcore-lux" { cloud.vmEncryptedVolumeType = "encrypted-ssd" }
        }, warnings: []),
        Case(name: "an AWS leg naming no backup identity", example: "retail-bank", change: { cloud in
            if cloud.name == "aws-irl" { cloud.endpoints.objectStorageBackupProfile = nil }
        }, warnings: [redisVolumes]),
        // Regression (issue 32, H2): the VM's job got mcloud's own keys; now the plan stops first where mcloud
        // cannot make an identity.
        Case(name: "an OpenStack leg's cloud naming no backup identity", example: "telemed", change: { cloud in
            if cloud.name == "sel-msk" { cloud.endpoints.objectStorageBackupProfile = nil }
        }, errors: [
            selNoProfile("analytics", "mcloud-telemed-analytics-bfdef5e8"), selNoProfile("scheduling-db@kz", "mcloud-telemed-kz-scheduling-db-d336317c"),
            selNoProfile("scheduling-db@ru", "mcloud-telemed-ru-scheduling-db-5f6113af"),
        ], warnings: [
            "ehr-db@kz: its personal data lies on volumes of ps-ala's default Cinder type, encrypted only if that type is: ps-ala names no spec.vm.encryptedVolumeType in its catalog entry (Providers/pscloud.yaml:4:19)",
        ]),
        Case(name: "a price list with no endpoints at all is left to the plan's own note", example: "retail-bank", change: { cloud in
            if cloud.name == "aws-irl" { cloud.endpoints = Cloud.Endpoints() }
        }, warnings: [redisVolumes]),
        Case(name: "OpenStack legs and personal data in Kazakhstan", example: "telemed", warnings: [
            telemedLeg("analytics", "mcloud-telemed-analytics-bfdef5e8"),
            "ehr-db@kz: its personal data lies on volumes of ps-ala's default Cinder type, encrypted only if that type is: ps-ala names no spec.vm.encryptedVolumeType in its catalog entry (Providers/pscloud.yaml:4:19)",
            telemedLeg("scheduling-db@kz", "mcloud-telemed-kz-scheduling-db-d336317c"),
            telemedLeg("scheduling-db@ru", "mcloud-telemed-ru-scheduling-db-5f6113af"),
        ]),
        Case(name: "managed databases and VMs without a leg", example: "shop", warnings: []),
    ]

    @Test(arguments: cases)
    func theReviewOfAnExampleSaysExactlyThis(_ test: Case) throws {
        var (model, plan) = try RenderFixtures.example(test.example)
        for index in model.clouds.indices { test.change(&model.clouds[index]) }
        let review = DatabaseVMReview(model: model, placement: Placement(plan))
        #expect(review.errors.map { $0.replacingOccurrences(of: RenderFixtures.root + "/", with: "") } == test.errors)
        let warnings = review.warnings.map { "\($0.cell): \($0.message)" }.sorted().map { $0.replacingOccurrences(of: RenderFixtures.root + "/", with: "") }
        #expect(warnings == test.warnings.sorted())
    }
}
