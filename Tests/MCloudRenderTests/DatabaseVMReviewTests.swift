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

    static let redisLeg = "sessions-redis@eu: DR leg mcloud-retail-bank-eu-sessions-redis-d97defed in aws-irl: the VM gets the keys of profile aws-irl-backup as they are: mcloud makes no identity scoped to this bucket on AWS yet, so only that profile's own policy limits what they reach"
    static let redisVolumes = "sessions-redis@eu: its personal data lies on volumes of gcore-lux's default Cinder type, encrypted only if that type is: gcore-lux names no spec.vm.encryptedVolumeType in its catalog entry (Providers/gcore.yaml:4:19)"
    static func telemedLeg(_ cell: String, _ bucket: String) -> String {
        "\(cell): DR leg \(bucket) in sel-msk: the VM gets the keys of profile sel-msk-backup unscoped: sel-msk's S3-compatible storage gives EC2-style keys the rights of their whole project, and mcloud cannot narrow them to one bucket there, so whoever reads them on the VM reaches every bucket they reach"
    }

    static let cases: [Case] = [
        Case(name: "a VM on Gcore keeping its leg in AWS", example: "retail-bank", warnings: [redisVolumes, redisLeg]),
        Case(name: "Gcore naming an encrypted volume type", example: "retail-bank", change: { cloud in
            if cloud.name == "gcore-lux" { cloud.vmEncryptedVolumeType = "encrypted-ssd" }
        }, warnings: [redisLeg]),
        // Regression (issue 32, H2): the VM's job got mcloud's own keys; now the plan stops first.
        Case(name: "the leg's cloud naming no backup identity", example: "retail-bank", change: { cloud in
            if cloud.name == "aws-irl" { cloud.endpoints.objectStorageBackupProfile = nil }
        }, errors: [
            "sessions-redis@eu: its DR leg's bucket mcloud-retail-bank-eu-sessions-redis-d97defed in aws-irl has no backup identity for the VM's backup job: set endpoints.objectStorage.backupProfile in aws-irl's catalog entry (Providers/aws.yaml:36:19) to a profile of the operator's AWS files whose keys reach its backup buckets only; a VM never gets mcloud's own keys",
        ], warnings: [redisVolumes]),
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
