import MCloudCore
import MCloudEngine
import MCloudProvider

/// The line under a database server a failover or a drill creates with a recovery point (`spec.restore`): the backup
/// it loads at boot and when that backup was taken. The age is the failover's to print: the plan holds no clock.
enum RecoveryPointView {
    static func line(_ change: ResourceChange) -> String? {
        guard change.action == .create || change.action == .update, let body = change.after?.body,
              let bucket = body.value(at: ["spec", "restore", "bucket"])?.stringValue,
              let object = body.value(at: ["spec", "restore", "object"])?.stringValue else { return nil }
        let cloud = body.value(at: ["spec", "restore", "cloud"])?.stringValue.map { " in \($0)" } ?? ""
        let taken = body.value(at: ["spec", "restore", "takenAt"])?.stringValue.map { ", taken \($0)" } ?? ""
        return "restores s3://\(bucket)/\(object)\(cloud)\(taken)"
    }
}
