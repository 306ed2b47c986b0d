import Testing
@testable import MCloudAWS

/// The policy documents of a DR leg's IAM users (docs/security.md, H2), exactly as IAM gets them.
struct BackupPolicyTests {
    @Test func theBackupUserMayOnlyUploadUnderItsPrefix() {
        #expect(BackupPolicy.writeOnly(bucket: "b", prefix: "shop.db.0/") == #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:PutObject","s3:AbortMultipartUpload"],"Resource":"arn:aws:s3:::b/shop.db.0/*"}]}"#)
    }

    /// pgBackRest reads, lists and deletes under its prefix (docs/security.md, H2), but may never delete a version or
    /// change the bucket's versioning or lifecycle, which keep what it deletes recoverable.
    @Test func anArchivingUserMayReadWriteAndDeleteOnlyUnderItsPrefixAndNeverAVersion() {
        let document = BackupPolicy.archive(bucket: "b", prefix: "bank.ledger.0/")
        #expect(document == #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject","s3:DeleteObject","s3:AbortMultipartUpload"],"Resource":"arn:aws:s3:::b/bank.ledger.0/*"},{"Effect":"Allow","Action":["s3:ListBucket"],"Resource":"arn:aws:s3:::b","Condition":{"StringLike":{"s3:prefix":["bank.ledger.0/*"]}}}]}"#)
        for right in ["DeleteObjectVersion", "PutBucketVersioning", "PutLifecycleConfiguration", "s3:*"] { #expect(!document.contains(right)) }
    }

    @Test func aRestoreUserMayReadAndListOnlyUnderItsPrefixAndWriteOnlyItsReport() {
        #expect(BackupPolicy.restore(bucket: "b", prefix: "shop.db.0/", reportKey: "shop.db.drill-1/restored.json") == #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject"],"Resource":"arn:aws:s3:::b/shop.db.0/*"},{"Effect":"Allow","Action":["s3:ListBucket"],"Resource":"arn:aws:s3:::b","Condition":{"StringLike":{"s3:prefix":["shop.db.0/*"]}}},{"Effect":"Allow","Action":["s3:PutObject"],"Resource":"arn:aws:s3:::b/shop.db.drill-1/restored.json"}]}"#)
    }
}
