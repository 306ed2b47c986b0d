import Foundation
import MCloudAWS
import MCloudHTTP
import MCloudProvider
import MCloudState
import Testing

/// plan, apply and destroy of an application whose cells all land on AWS, against moto with signatures checked
/// (scripts/testbed/moto.sh). Its PostgreSQL becomes an RDS instance, its redis two EC2 VMs with EBS volumes, both
/// with backup buckets in the other region, the VMs' with an IAM user of the leg's own; `--target aws.` leaves the
/// Kubernetes objects out.
@Suite(.serialized, .enabled(if: AWSWorkspace.available, "start scripts/testbed/moto.sh to run the AWS end-to-end tests"))
struct AWSEndToEndTests {
    @Test func applyReplanChangeAndDestroyOnMoto() async throws {
        let workspace = try AWSWorkspace()
        let applied = await workspace.run("apply", ["--auto-approve"])
        #expect(applied.exitCode == 0, "\(applied.stdout)\(applied.stderr)")
        #expect(applied.stdout.contains("Apply complete! Resources: 12 added, 0 changed, 0 replaced, 0 destroyed."))
        let found = try await workspace.inventory()
        #expect(found.instances == 2 && found.volumes == 2 && found.groups == 2 && found.databases == 1 && found.buckets == 2 && found.users == 1, "\(found)")

        let again = await workspace.run("plan", ["--detailed-exitcode"])
        #expect(again.exitCode == 0, "\(again.stdout)\(again.stderr)")
        #expect(again.stdout.contains("No changes. The clouds match the manifests: 12 resources up to date."))

        try workspace.edit("retentionDays: 14", "retentionDays: 21")
        let changed = await workspace.run("plan", ["--detailed-exitcode"])
        #expect(changed.exitCode == 2, "\(changed.stdout)\(changed.stderr)")
        #expect(changed.stdout.contains("~ spec.retentionDays: 14 -> 21"), "\(changed.stdout)")
        #expect(await workspace.run("apply", ["--auto-approve"]).exitCode == 0)
        #expect(await workspace.run("plan", ["--detailed-exitcode"]).exitCode == 0)

        let destroyed = await workspace.run("destroy", ["--auto-approve"])
        #expect(destroyed.exitCode == 0, "\(destroyed.stdout)\(destroyed.stderr)")
        #expect(destroyed.stdout.contains("Destroy complete! Resources: 0 added, 0 changed, 0 replaced, 12 destroyed."))
        let left = try await workspace.inventory()
        #expect(left.instances + left.volumes + left.groups + left.databases + left.buckets + left.users == 0, "\(left)")
        #expect(try #require(try FileStateBackend(path: workspace.statePath).read()).resources.isEmpty)
    }
}

/// A copy of Fixtures/aws with a unique application name, a catalog whose profile points at moto, and its own state.
struct AWSWorkspace {
    static let bedDirectory = ProcessInfo.processInfo.environment["MCLOUD_TESTBED_MOTO_DIR"] ?? "/tmp/mcloud-testbed/moto"
    static let bed: [String: String]? = {
        guard let data = FileManager.default.contents(atPath: "\(bedDirectory)/env") else { return nil }
        var values: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }()
    /// In CI a missing bed fails the tests instead of skipping them.
    static let available = bed != nil || ProcessInfo.processInfo.environment["CI"] != nil

    let folder: String
    let application: String
    let environment: [String: String]
    let credentials: AWSCredentials
    let url: String

    init() throws {
        let bed = try #require(Self.bed, "no moto test bed: run scripts/testbed/moto.sh start (looked for \(Self.bedDirectory)/env)")
        url = try #require(bed["MCLOUD_TEST_MOTO_URL"])
        credentials = AWSCredentials(accessKeyID: bed["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"] ?? "", secretAccessKey: bed["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"] ?? "")
        // The database VMs' identity: moto's backup user, or its test user on a bed started before moto.sh made one.
        let backup = bed["MCLOUD_TEST_MOTO_BACKUP_ACCESS_KEY_ID"].map { (keyID: $0, secret: bed["MCLOUD_TEST_MOTO_BACKUP_SECRET_ACCESS_KEY"] ?? "") }
            ?? (keyID: credentials.accessKeyID, secret: credentials.secretAccessKey)
        application = "e2e-aws-\(UUID().uuidString.prefix(8).lowercased())"
        folder = NSTemporaryDirectory() + "mcloud-\(application)"
        let manager = FileManager.default
        try manager.createDirectory(atPath: folder + "/app", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: folder + "/providers", withIntermediateDirectories: true)
        let app = try String(contentsOfFile: "\(fixtures)/aws/app/application.yaml", encoding: .utf8)
        try app.replacingOccurrences(of: "e2e-aws", with: application).write(toFile: "\(folder)/app/application.yaml", atomically: true, encoding: .utf8)
        let catalog = try String(contentsOfFile: "\(fixtures)/aws/providers/aws.yaml", encoding: .utf8)
        try catalog.replacingOccurrences(of: "PROFILE", with: "moto").write(toFile: "\(folder)/providers/aws.yaml", atomically: true, encoding: .utf8)
        let config = """
            [profile moto]
            aws_access_key_id = \(credentials.accessKeyID)
            aws_secret_access_key = \(credentials.secretAccessKey)
            endpoint_url = \(url)

            [profile moto-backup]
            aws_access_key_id = \(backup.keyID)
            aws_secret_access_key = \(backup.secret)

            """
        try config.write(toFile: "\(folder)/aws-config", atomically: true, encoding: .utf8)
        environment = [
            "NO_COLOR": "1", "AWS_CONFIG_FILE": "\(folder)/aws-config", "AWS_SHARED_CREDENTIALS_FILE": "\(folder)/no-credentials",
            "MCLOUD_AWS_CLUSTER_CIDR_AWS_FRA": "10.1.0.0/16", "MCLOUD_AWS_CLUSTER_CIDR_AWS_IRL": "10.2.0.0/16",
        ]
    }

    var statePath: String { "\(folder)/state.json" }

    func run(_ command: String, _ arguments: [String] = []) async -> Run {
        let options = ["-f", "\(folder)/app", "--providers", "\(folder)/providers", "--state", "file://\(statePath)", "--target", "aws."]
        return await mcloudRun([command] + options + arguments, environment: environment)
    }

    func edit(_ from: String, _ to: String) throws {
        let path = "\(folder)/app/application.yaml"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try text.replacingOccurrences(of: from, with: to).write(toFile: path, atomically: true, encoding: .utf8)
    }

    struct Counts: CustomStringConvertible {
        var instances = 0, volumes = 0, groups = 0, databases = 0, buckets = 0, users = 0
        var description: String {
            "\(instances) instances, \(volumes) volumes, \(groups) security groups, \(databases) RDS instances, \(buckets) buckets, \(users) IAM users"
        }
    }

    /// What carries this application's tags in both regions, read straight from the APIs.
    func inventory() async throws -> Counts {
        var counts = Counts()
        let tags = ["application": application]
        for region in ["eu-central-1", "eu-west-1"] {
            let client = AWSClient(configuration: AWSConfiguration(credentials: credentials, region: region, endpointURL: url))
            let ec2 = EC2Client(client: client)
            counts.instances += try await ec2.describeInstances(tags: tags, states: ["pending", "running", "stopping", "stopped", "shutting-down"]).count
            counts.volumes += try await ec2.describeVolumes(tags: tags).count
            counts.groups += try await ec2.describeSecurityGroups(tags: tags).count
            counts.databases += try await RDSClient(client: client).describeInstances().filter { $0.tags["application"] == application }.count
        }
        let s3 = S3Client(client: AWSClient(configuration: AWSConfiguration(credentials: credentials, region: "eu-west-1", endpointURL: url)))
        counts.buckets = try await s3.listBuckets(prefix: "mcloud-", tags: tags).count
        let iam = IAMClient(client: s3.client)
        for user in try await iam.listUsers(pathPrefix: "/mcloud/") where try await iam.user(named: user.name)?.tags["application"] == application {
            counts.users += 1
        }
        return counts
    }
}
