import MCloudCore

/// The inline policy of a DR leg's IAM user (docs/security.md, H2): what the backup job on a database VM may do in
/// its bucket, and nothing else.
public enum BackupPolicy {
    /// The one inline policy mcloud puts on a leg's user.
    public static let name = "mcloud-backup"

    /// Upload only, under `prefix`: `s3:PutObject` (which also covers a multipart upload's create, part and complete
    /// calls, as the AWS CLI makes for a large dump) and `s3:AbortMultipartUpload`, which the CLI sends when such an
    /// upload fails. No read, list or delete: a process on the VM can add backups but never read the older ones or
    /// destroy them, and the bucket's lifecycle rule expires them instead of the job.
    public static func writeOnly(bucket: String, prefix: String) -> String {
        document(actions: ["s3:PutObject", "s3:AbortMultipartUpload"], resource: "arn:aws:s3:::\(bucket)/\(prefix)*")
    }

    /// The one inline policy of the temporary user a drill gives its restoring VM.
    public static let restoreName = "mcloud-restore"

    /// A restoring VM's rights: read only under `prefix` (`s3:GetObject` on the prefix, and `s3:ListBucket` only for
    /// keys under it), plus `s3:PutObject` on exactly `reportKey`, where the VM writes its restore report and the drill
    /// waits for it; no other key can be written, and nothing deleted.
    public static func restore(bucket: String, prefix: String, reportKey: String) -> String {
        let list = statement(["s3:ListBucket"], resource: "arn:aws:s3:::\(bucket)", condition: [("StringLike", .object([("s3:prefix", .array([.string("\(prefix)*")]))]))])
        return document([
            statement(["s3:GetObject"], resource: "arn:aws:s3:::\(bucket)/\(prefix)*"), list,
            statement(["s3:PutObject"], resource: "arn:aws:s3:::\(bucket)/\(reportKey)"),
        ])
    }

    static func document(actions: [String], resource: String) -> String {
        document([statement(actions, resource: resource)])
    }

    static func statement(_ actions: [String], resource: String, condition: [(String, JSONValue)] = []) -> JSONValue {
        var fields: [(String, JSONValue)] = [("Effect", .string("Allow")), ("Action", .array(actions.map(JSONValue.string))), ("Resource", .string(resource))]
        if !condition.isEmpty { fields.append(("Condition", .object(condition))) }
        return .object(fields)
    }

    static func document(_ statements: [JSONValue]) -> String {
        JSONValue.object([("Version", .string("2012-10-17")), ("Statement", .array(statements))]).serialized(pretty: false)
    }
}
