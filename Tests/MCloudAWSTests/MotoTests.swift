import Foundation
import MCloudHTTP
import MCloudTestSupport
import Testing
@testable import MCloudAWS

/// The moto server that `scripts/testbed/moto.sh start` runs with signature checking on. In CI (`CI` set) a
/// missing server fails these tests; elsewhere they are skipped until the script has been started.
struct MotoBed {
    static let directory = ProcessInfo.processInfo.environment["MCLOUD_TESTBED_MOTO_DIR"] ?? "/tmp/mcloud-testbed/moto"
    static let values: [String: String]? = {
        guard let data = FileManager.default.contents(atPath: "\(directory)/env") else { return nil }
        var values: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }()
    static let required = values != nil || ProcessInfo.processInfo.environment["CI"] != nil

    /// A client for the server that checks signatures, or with `open` for the one that does not (moto rejects
    /// correct signatures on bodiless non-S3 requests, so CloudFront and EKS reads run there).
    static func client(region: String = "us-east-1", secret: String? = nil, open: Bool = false) throws -> AWSClient {
        guard let values, let url = values[open ? "MCLOUD_TEST_MOTO_OPEN_URL" : "MCLOUD_TEST_MOTO_URL"] else {
            throw AWSError.configuration("no moto test bed: run scripts/testbed/moto.sh start (looked for \(directory)/env)")
        }
        let credentials = AWSCredentials(accessKeyID: values["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"] ?? "", secretAccessKey: secret ?? values["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"] ?? "")
        return AWSClient(
            configuration: AWSConfiguration(credentials: credentials, region: region, endpointURL: url),
            transport: CurlTransport(timeouts: HTTPTimeouts(connect: 5, total: 30)),
            retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0.05, maxDelay: 0.2, budget: 2, deadline: BedTiming.requestDeadline)
        )
    }

    static func name(_ purpose: String) -> String { "mcloud-\(purpose)-\(UUID().uuidString.prefix(8).lowercased())" }
}

@Suite(.enabled(if: MotoBed.required, "start scripts/testbed/moto.sh to run the moto tests"))
struct MotoTests {
    @Test("an S3 request signed by mcloud is accepted by moto with signature checking on; a backup bucket is set up and torn down")
    func backupBucket() async throws {
        let s3 = S3Client(client: try MotoBed.client())
        let name = MotoBed.name("dr")
        let tags = ["mcloud.io/managed-by": "mcloud", "application": "shop", "cell": name]
        try await s3.ensureBucket(.init(name: name, expireAfterDays: 30, noncurrentExpireAfterDays: 7, tags: tags))
        try await s3.ensureBucket(.init(name: name, expireAfterDays: 30, noncurrentExpireAfterDays: 7, tags: tags))
        #expect(try await s3.bucketExists(name))
        #expect(try await s3.versioningStatus(name) == "Enabled")
        let rules = try await s3.lifecycle(name)
        #expect(rules.count == 1 && rules.first?.expireAfterDays == 30 && rules.first?.noncurrentExpireAfterDays == 7)
        #expect(try await s3.tags(name) == tags)
        try await s3.putObject(bucket: name, key: "dumps/a b.sql", body: Array("v1".utf8))
        try await s3.putObject(bucket: name, key: "dumps/a b.sql", body: Array("v2".utf8))
        #expect(try await s3.getObject(bucket: name, key: "dumps/a b.sql") == Array("v2".utf8))
        #expect(try await s3.listBuckets(prefix: "mcloud-dr-", tags: ["cell": name]) == [name])
        #expect(try await s3.listBuckets(prefix: "mcloud-none-").isEmpty)
        try await s3.deleteBucket(name)
        #expect(try await !s3.bucketExists(name))
        try await s3.deleteBucket(name)
    }

    @Test("outside us-east-1 the bucket is created with its LocationConstraint")
    func otherRegion() async throws {
        let s3 = S3Client(client: try MotoBed.client(region: "eu-west-1"))
        let name = MotoBed.name("eu")
        try await s3.createBucket(name)
        try await s3.createBucket(name)
        #expect(try await s3.bucketExists(name))
        try await s3.deleteBucket(name)
    }

    @Test("a wrong secret key gives typed signature errors: S3 SignatureDoesNotMatch 403, EC2 AuthFailure 401")
    func wrongSecret() async throws {
        let client = try MotoBed.client(secret: "not-the-secret")
        let s3Error = await #expect(throws: AWSError.self) { try await S3Client(client: client).listBuckets() }
        #expect(s3Error?.code == "SignatureDoesNotMatch")
        #expect(s3Error?.status == 403)
        #expect(s3Error?.description.contains("not-the-secret") == false)
        let ec2Error = await #expect(throws: AWSError.self) { try await EC2Client(client: client).describeInstances() }
        #expect(ec2Error?.code == "AuthFailure")
        #expect(ec2Error?.status == 401)
    }

    @Test("EC2: a security group with a rule, a tagged instance with user data, found by tag, terminated and waited for")
    func instanceLifecycle() async throws {
        let ec2 = EC2Client(client: try MotoBed.client())
        let cell = MotoBed.name("cell")
        let group = try await ec2.createSecurityGroup(name: cell, description: "mcloud test database", tags: ["mcloud.io/managed-by": "mcloud", "application": "shop", "cell": cell])
        #expect(try await ec2.securityGroupID(name: cell) == group)
        #expect(try await ec2.authorizeIngress(groupID: group, ports: 5432...5432, cidr: "10.0.0.0/16"))
        #expect(try await !ec2.authorizeIngress(groupID: group, ports: 5432...5432, cidr: "10.0.0.0/16"))
        let spec = EC2Client.InstanceSpec(
            imageID: "ami-12c6146b", instanceType: "t3.micro", userData: Array("#cloud-config\npackages: [postgresql]\n".utf8), securityGroupIDs: [group],
            tags: ["mcloud.io/managed-by": "mcloud", "application": "shop", "cell": cell], clientToken: cell
        )
        let instance = try await ec2.runInstance(spec)
        #expect(instance.tags["cell"] == cell)
        #expect(try await ec2.describeInstances(ids: [instance.id]).first?.metadataTokensRequired == true, "security H2: IMDSv2 only")
        let found = try await ec2.describeInstances(tags: ["cell": cell, "mcloud.io/managed-by": "mcloud"])
        #expect(found.map(\.id) == [instance.id])
        try await ec2.terminateAndWait([instance.id], timeout: 30)
        #expect(try await ec2.describeInstances(tags: ["cell": cell], states: ["running", "pending"]).isEmpty)
        try await ec2.deleteSecurityGroup(id: group)
        try await ec2.deleteSecurityGroup(id: group)
        #expect(try await ec2.securityGroupID(name: cell) == nil)
    }

    @Test("EC2: a database VM's volume is encrypted at rest (security M6)")
    func volumesAreEncrypted() async throws {
        let ec2 = EC2Client(client: try MotoBed.client())
        let cell = MotoBed.name("vol")
        let volume = try await ec2.createVolume(zone: "us-east-1a", sizeGiB: 1, tags: ["cell": cell], clientToken: cell)
        let found = try #require(try await ec2.describeVolumes(ids: [volume.id]).first)
        #expect(found.encrypted)
        try await ec2.deleteVolume(volume.id, timeout: 30)
    }

    @Test("moto's HTML 500 for an unknown action is an unexpected answer with its status")
    func htmlFailure() async throws {
        let error = await #expect(throws: AWSError.self) {
            try await MotoBed.client().query(.ec2, action: "NoSuchActionAnywhere", version: EC2Client.apiVersion, parameters: [])
        }
        guard case .unexpectedAnswer(let operation, let status, _) = error else {
            Issue.record("expected an unexpected answer, got \(String(describing: error))")
            return
        }
        #expect(operation == "ec2 NoSuchActionAnywhere")
        #expect(status == 500)
    }
}

extension MotoTests {
    @Test("RDS: a tagged postgres instance is created, waited for until available, found, and deleted")
    func database() async throws {
        let rds = RDSClient(client: try MotoBed.client())
        let name = MotoBed.name("pg")
        let spec = RDSClient.InstanceSpec(
            identifier: name, instanceClass: "db.t3.micro", engineVersion: "16.3", masterUsername: "mcloud", masterPassword: "not-a-real-password",
            tags: ["mcloud.io/managed-by": "mcloud", "application": "shop", "cell": name]
        )
        let created = try await rds.createInstance(spec)
        #expect(created.identifier == name)
        let available = try await rds.waitUntilAvailable(name, timeout: 30)
        #expect(available.endpoint?.hasPrefix(name) == true)
        #expect(available.port == 5432)
        #expect(available.storageEncrypted && !available.publiclyAccessible, "security M6: encrypted at rest, never public")
        let duplicate = await #expect(throws: AWSError.self) { try await rds.createInstance(spec) }
        #expect(duplicate?.code == "DBInstanceAlreadyExists")
        #expect(duplicate?.description.contains("not-a-real-password") == false)
        try await rds.deleteInstance(name)
        #expect(try await rds.describeInstance(name) == nil)
        try await rds.deleteInstance(name)
    }

    @Test("CloudFront: create is accepted with signatures checked; update with If-Match, invalidation, disable and delete")
    func distribution() async throws {
        let reference = MotoBed.name("cdn")
        let spec = CloudFrontClient.DistributionSpec(callerReference: reference, comment: "mcloud test", aliases: ["\(reference).example.com"], originDomain: "origin.example.com")
        let checked = try await CloudFrontClient(client: try MotoBed.client()).createDistribution(spec)
        #expect(checked.enabled)
        let cloudFront = CloudFrontClient(client: try MotoBed.client(open: true))
        let created = try await cloudFront.createDistribution(spec)
        #expect(!created.etag.isEmpty && created.domainName.hasSuffix(".cloudfront.net"))
        let deployed = try await cloudFront.waitUntilDeployed(id: created.id, timeout: 30)
        #expect(deployed.status == "Deployed")
        var (config, etag) = try await cloudFront.config(id: created.id)
        #expect(config.value("Comment") == "mcloud test")
        if let index = config.children.firstIndex(where: { $0.localName == "Comment" }) { config.children[index].text = "changed <by> mcloud" }
        _ = try await cloudFront.updateDistribution(id: created.id, config: config, etag: etag)
        #expect(try await cloudFront.config(id: created.id).config.value("Comment") == "changed <by> mcloud")
        let invalidation = try await cloudFront.createInvalidation(id: created.id, paths: ["/index.html", "/assets/*"], callerReference: reference)
        #expect(!invalidation.isEmpty)
        try await cloudFront.deleteDistribution(id: created.id, timeout: 30)
        let gone = await #expect(throws: AWSError.self) { try await cloudFront.distribution(id: created.id) }
        #expect(gone?.code == "NoSuchDistribution")
        try await cloudFront.deleteDistribution(id: created.id)
    }

    @Test("EKS: DescribeCluster returns the endpoint and CA of a cluster")
    func cluster() async throws {
        let client = try MotoBed.client(open: true)
        let name = MotoBed.name("eks")
        let body = "{\"name\": \"\(name)\", \"version\": \"1.29\", \"roleArn\": \"arn:aws:iam::123456789012:role/eks\", \"resourcesVpcConfig\": {\"subnetIds\": []}}"
        let create = HTTPRequest(method: .POST, url: client.endpoint(for: .eks) + "/clusters", headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        _ = try await client.send(create, service: .eks, operation: "eks CreateCluster")
        let cluster = try await EKSClient(client: client).describeCluster(name)
        #expect(cluster.name == name)
        #expect(cluster.endpoint.hasPrefix("https://"))
        // moto's CA data is random base64 rather than a PEM; a real PEM is decoded in AWSClientTests.
        #expect(!cluster.certificateAuthorityPEM.isEmpty)
        let missing = await #expect(throws: AWSError.self) { try await EKSClient(client: client).describeCluster("nope-\(name)") }
        #expect(missing?.code == "ResourceNotFoundException")
        #expect(missing?.status == 404)
    }
}
