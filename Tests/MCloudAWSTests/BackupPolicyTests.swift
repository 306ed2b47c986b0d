import Testing
@testable import MCloudAWS

/// The policy documents of a DR leg's IAM users (docs/security.md, H2), exactly as IAM gets them.
struct BackupPolicyTests {
    @Test func theBackupUserMayOnlyUploadUnderItsPrefix() {
        #expect(BackupPolicy.writeOnly(bucket: "b", prefix: "shop.db.0/") == #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:PutObject","s3:AbortMultipartUpload"],"Resource":"arn:aws:s3:::b/shop.db.0/*"}]}"#)
    }

    @Test func aRestoreUserMayReadAndListOnlyUnderItsPrefixAndWriteOnlyItsReport() {
        #expect(BackupPolicy.restore(bucket: "b", prefix: "shop.db.0/", reportKey: "shop.db.drill-1/restored.json") == #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject"],"Resource":"arn:aws:s3:::b/shop.db.0/*"},{"Effect":"Allow","Action":["s3:ListBucket"],"Resource":"arn:aws:s3:::b","Condition":{"StringLike":{"s3:prefix":["shop.db.0/*"]}}},{"Effect":"Allow","Action":["s3:PutObject"],"Resource":"arn:aws:s3:::b/shop.db.drill-1/restored.json"}]}"#)
    }
}
