import MCloudAWS
import MCloudCore
import MCloudHTTP

/// Reading an infrastructure body (`docs/gitops.md`) and building the document refresh reports in its shape.
enum ResourceBody {
    static func string(_ body: JSONValue, _ path: String...) -> String? { body.value(at: path)?.stringValue }

    static func number(_ body: JSONValue, _ path: String...) -> Double? { body.value(at: path)?.doubleValue }

    /// The tags every AWS resource of mcloud's carries: managed-by, application, cell, cloud, address and the digest
    /// of the body it was last made from.
    static func tags(_ body: JSONValue, address: String, cloud: String) -> [String: String] {
        let application = string(body, "metadata", "labels", "app.kubernetes.io/part-of") ?? ""
        let cell = string(body, "metadata", "labels", "mcloud.io/cell") ?? ""
        return EC2Client.managedTags(application: application, cell: cell).merging(
            [AWSTag.cloud: cloud, AWSTag.address: address, AWSTag.digest: digest(body)], uniquingKeysWith: { $1 }
        )
    }

    /// SHA-256 of the body with keys sorted and whole numbers written alike, so equal bodies digest equal.
    static func digest(_ body: JSONValue) -> String {
        String(AWSNames.hash(canonical(body).serialized(pretty: false)).prefix(32))
    }

    private static func canonical(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let pairs): return .object(pairs.sorted { $0.0 < $1.0 }.map { ($0.0, canonical($0.1)) })
        case .array(let items): return .array(items.map(canonical))
        case .number(let number) where number.rounded() == number && abs(number) < 1e15: return .int(Int(number))
        default: return value
        }
    }

    /// `value` with `path` set to `new`, adding missing objects on the way.
    static func setting(_ path: ArraySlice<String>, to new: JSONValue, in value: JSONValue) -> JSONValue {
        guard let key = path.first else { return new }
        var pairs = value.objectPairs
        if let index = pairs.firstIndex(where: { $0.0 == key }) {
            pairs[index].1 = setting(path.dropFirst(), to: new, in: pairs[index].1)
        } else {
            pairs.append((key, setting(path.dropFirst(), to: new, in: .object([]))))
        }
        return .object(pairs)
    }
}

/// The tag keys the provider reads back.
enum AWSTag {
    static let managedBy = "mcloud.io/managed-by"
    static let cloud = "mcloud.io/cloud"
    static let address = "mcloud.io/address"
    static let digest = "mcloud.io/spec-digest"
    static let backupAddress = "mcloud.io/backup-address"
    static let backupDigest = "mcloud.io/backup-digest"
    static let backupSchedule = "mcloud.io/backup-schedule-base64"
    static let backupRetention = "mcloud.io/backup-retention-days"
    static let backupBucket = "mcloud.io/backup-bucket"
    static let backupKeys = [backupAddress, backupDigest, backupSchedule, backupRetention, backupBucket]
}
