import MCloudCore
import MCloudEngine
import MCloudProvider

/// The line under a database server a failover or a drill creates with a recovery point (`spec.restore`): the backup
/// it loads at boot and when that backup was taken. The age is the failover's to print: the plan holds no clock.
enum RecoveryPointView {
    static func line(_ change: ResourceChange) -> String? {
        guard change.action == .create || change.action == .update, let body = change.after?.body, let point = ResourceBody(body).restore else { return nil }
        let cloud = point.location.cloud.isEmpty ? "" : " in \(point.location.cloud)"
        let taken = point.takenAt.isEmpty ? "" : ", taken \(point.takenAt)"
        return "restores \(point.location.url(point.object))\(cloud)\(taken)"
    }
}
