import Foundation
import MCloudCore
import MCloudCrypto
import MCloudHTTP
import Testing
@testable import MCloudAWS

/// The client against scripted answers: signing on every attempt, throttling retries, request encoding.
struct AWSClientTests {
    static let ok = HTTPResponse.xml(200, "<DescribeRegionsResponse><requestId>1</requestId></DescribeRegionsResponse>")

    @Test("throttled answers are retried with backoff until one succeeds, whatever the method", arguments: [
        HTTPResponse.xml(400, "<ErrorResponse><Error><Code>Throttling</Code><Message>Rate exceeded</Message></Error></ErrorResponse>"),
        HTTPResponse.xml(503, "<Response><Errors><Error><Code>RequestLimitExceeded</Code><Message>slow</Message></Error></Errors></Response>"),
        HTTPResponse.xml(503, "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"),
        HTTPResponse.xml(429, "{\"message\": \"Too Many Requests\"}", headers: [("x-amzn-errortype", "ThrottlingException")]),
    ])
    func throttlingIsRetried(_ throttled: HTTPResponse) async throws {
        let transport = ScriptedTransport([throttled, throttled, Self.ok])
        let sleeper = RecordingSleeper()
        let client = TestConfiguration.client(transport, sleeper: sleeper)
        let answer = try await client.query(.ec2, action: "DescribeRegions", version: EC2Client.apiVersion, parameters: [])
        #expect(answer.value("requestId") == "1")
        #expect(transport.sent.count == 3)
        #expect(sleeper.recorded == [0.1, 0.2])
        #expect(transport.sent.allSatisfy { $0.header("authorization")?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/ec2/aws4_request") == true })
    }

    @Test("a Retry-After header sets the wait")
    func retryAfter() async throws {
        let throttled = HTTPResponse.xml(503, "<Error><Code>SlowDown</Code></Error>", headers: [("retry-after", "0.5")])
        let transport = ScriptedTransport([throttled, Self.ok])
        let sleeper = RecordingSleeper()
        _ = try await TestConfiguration.client(transport, sleeper: sleeper).query(.ec2, action: "DescribeRegions", version: EC2Client.apiVersion, parameters: [])
        #expect(sleeper.recorded == [0.5])
    }

    @Test("when throttling outlasts the attempts the last typed error is thrown")
    func throttlingGivesUp() async throws {
        let throttled = HTTPResponse.xml(400, "<ErrorResponse><Error><Code>Throttling</Code><Message>Rate exceeded</Message></Error></ErrorResponse>")
        let transport = ScriptedTransport(Array(repeating: throttled, count: 6))
        let error = await #expect(throws: AWSError.self) {
            try await TestConfiguration.client(transport).query(.rds, action: "DescribeDBInstances", version: "2014-10-31", parameters: [])
        }
        #expect(error?.code == "Throttling")
        #expect(transport.sent.count == 4)
    }

    @Test("other errors are not retried: a non-idempotent 500 and a 400")
    func noRetry() async throws {
        for answer in [HTTPResponse.xml(500, "<html><title>boom</title></html>"), HTTPResponse.xml(400, "<Response><Errors><Error><Code>InvalidGroup.Duplicate</Code></Error></Errors></Response>")] {
            let transport = ScriptedTransport([answer, Self.ok])
            await #expect(throws: AWSError.self) {
                try await TestConfiguration.client(transport).query(.ec2, action: "CreateSecurityGroup", version: EC2Client.apiVersion, parameters: [])
            }
            #expect(transport.sent.count == 1)
        }
    }

    @Test("RunInstances sends base64 user data, the client token and the tags, and reads the instance")
    func runInstances() async throws {
        let answer = HTTPResponse.xml(200, """
        <RunInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><instancesSet><item><instanceId>i-123</instanceId>\
        <instanceState><code>0</code><name>pending</name></instanceState><privateIpAddress>10.0.0.5</privateIpAddress>\
        <tagSet><item><key>cell</key><value>c1</value></item></tagSet></item></instancesSet></RunInstancesResponse>
        """)
        let transport = ScriptedTransport([answer])
        let spec = EC2Client.InstanceSpec(
            imageID: "ami-1", instanceType: "t3.micro", userData: Array("#!/bin/sh\necho hi".utf8), securityGroupIDs: ["sg-1"],
            tags: ["mcloud.io/managed-by": "mcloud", "application": "shop", "cell": "c1"], clientToken: "tok-1"
        )
        let instance = try await EC2Client(client: TestConfiguration.client(transport)).runInstance(spec)
        #expect(instance == EC2Client.Instance(id: "i-123", state: "pending", privateIP: "10.0.0.5", publicIP: nil, tags: ["cell": "c1"]))
        let body = String(decoding: transport.sent[0].body ?? [], as: UTF8.self)
        #expect(body == "Action=RunInstances&Version=2016-11-15&ImageId=ami-1&InstanceType=t3.micro&MinCount=1&MaxCount=1&ClientToken=tok-1"
            + "&UserData=IyEvYmluL3NoCmVjaG8gaGk%3D&SecurityGroupId.1=sg-1"
            + "&MetadataOptions.HttpTokens=required&MetadataOptions.HttpPutResponseHopLimit=1&MetadataOptions.HttpEndpoint=enabled"
            + "&TagSpecification.1.ResourceType=instance"
            + "&TagSpecification.1.Tag.1.Key=application&TagSpecification.1.Tag.1.Value=shop&TagSpecification.1.Tag.2.Key=cell"
            + "&TagSpecification.1.Tag.2.Value=c1&TagSpecification.1.Tag.3.Key=mcloud.io%2Fmanaged-by&TagSpecification.1.Tag.3.Value=mcloud")
        #expect(transport.sent[0].retryable)
    }

    @Test("S3 addresses buckets path-style on a custom endpoint and virtual-host style on AWS")
    func s3Addressing() {
        let transport = ScriptedTransport([])
        #expect(S3Client(client: TestConfiguration.client(transport, endpoint: "http://127.0.0.1:9000")).url(bucket: "b", key: "a b/c") == "http://127.0.0.1:9000/b/a%20b/c")
        #expect(S3Client(client: TestConfiguration.client(transport, region: "eu-west-1")).url(bucket: "b", query: "versioning") == "https://b.s3.eu-west-1.amazonaws.com/?versioning")
        #expect(S3Client(client: TestConfiguration.client(transport), pathStyle: true).url(bucket: "b") == "https://s3.us-east-1.amazonaws.com/b")
    }

    @Test("S3 requests carry x-amz-content-sha256 and Content-MD5; outside us-east-1 CreateBucket names the region")
    func s3Create() async throws {
        let transport = ScriptedTransport([HTTPResponse(status: 200)])
        try await S3Client(client: TestConfiguration.client(transport, region: "eu-west-1", endpoint: "http://127.0.0.1:9000")).createBucket("backups")
        let sent = try #require(transport.sent.first)
        let body = String(decoding: sent.body ?? [], as: UTF8.self)
        #expect(body.contains("<LocationConstraint>eu-west-1</LocationConstraint>"))
        #expect(sent.header("x-amz-content-sha256") == Hex.lowercase(SHA2.sha256(sent.body ?? [])))
        #expect(sent.header("content-md5") == Data(MD5.digest(sent.body ?? [])).base64EncodedString())
        #expect(sent.header("authorization")?.contains("SignedHeaders=content-md5;content-type;host;x-amz-content-sha256;x-amz-date") == true)
    }

    @Test("the EKS token is a 60 s presigned STS GetCallerIdentity URL naming the cluster, base64url without padding")
    func eksToken() throws {
        let client = TestConfiguration.client(ScriptedTransport([]), region: "eu-west-1")
        let token = try EKSClient(client: client).token(clusterName: "prod-1", at: TestConfiguration.date)
        #expect(token.hasPrefix("k8s-aws-v1."))
        let encoded = String(token.dropFirst("k8s-aws-v1.".count))
        #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
        var padded = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        padded += String(repeating: "=", count: (4 - padded.count % 4) % 4)
        let url = String(decoding: try #require(Data(base64Encoded: padded)), as: UTF8.self)
        #expect(url.hasPrefix("https://sts.eu-west-1.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Algorithm=AWS4-HMAC-SHA256"))
        #expect(url.contains("X-Amz-Credential=AKIDEXAMPLE%2F20150830%2Feu-west-1%2Fsts%2Faws4_request"))
        #expect(url.contains("X-Amz-SignedHeaders=host%3Bx-k8s-aws-id&X-Amz-Expires=60&X-Amz-Signature="))
        let other = try EKSClient(client: client).token(clusterName: "prod-2", at: TestConfiguration.date)
        #expect(other != token)
    }

    @Test("DescribeCluster reads the endpoint and decodes the CA")
    func describeCluster() async throws {
        let ca = Data("-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----\n".utf8).base64EncodedString()
        let body = "{\"cluster\": {\"name\": \"prod-1\", \"endpoint\": \"https://ABC.gr7.eu-west-1.eks.amazonaws.com\", \"status\": \"ACTIVE\", \"version\": \"1.29\", \"certificateAuthority\": {\"data\": \"\(ca)\"}}}"
        let transport = ScriptedTransport([HTTPResponse(status: 200, body: Array(body.utf8))])
        let cluster = try await EKSClient(client: TestConfiguration.client(transport)).describeCluster("prod-1")
        #expect(cluster.endpoint == "https://ABC.gr7.eu-west-1.eks.amazonaws.com")
        #expect(String(decoding: cluster.certificateAuthorityPEM, as: UTF8.self).hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(transport.sent[0].url == "https://eks.us-east-1.amazonaws.com/clusters/prod-1")
    }
}

extension AWSClientTests {
    @Test("connection failures are retried for idempotent requests only")
    func connectionFailures() async throws {
        let idempotent = ScriptedTransport([])
        await #expect(throws: AWSError.self) {
            try await EC2Client(client: TestConfiguration.client(idempotent)).describeInstances()
        }
        #expect(idempotent.sent.count == 4)
        let once = ScriptedTransport([])
        await #expect(throws: AWSError.self) {
            try await EC2Client(client: TestConfiguration.client(once)).createSecurityGroup(name: "g", description: "d")
        }
        #expect(once.sent.count == 1)
    }

    @Test("polling backs off from 1 s on the client's clock and gives up at the deadline with a timeout naming what it waited for")
    func pollingTimesOut() async throws {
        let pending = HTTPResponse.xml(200, "<DescribeInstancesResponse><reservationSet><item><instancesSet><item><instanceId>i-1</instanceId><instanceState><name>shutting-down</name></instanceState></item></instancesSet></item></reservationSet></DescribeInstancesResponse>")
        let transport = ScriptedTransport([HTTPResponse.xml(200, "<TerminateInstancesResponse/>")] + Array(repeating: pending, count: 10))
        let sleeper = RecordingSleeper()
        let clock = ManualClock(now: TestConfiguration.date.timeIntervalSince1970)
        let error = await #expect(throws: AWSError.self) {
            try await EC2Client(client: TestConfiguration.client(transport, sleeper: sleeper, clock: clock)).terminateAndWait(["i-1"], timeout: 20)
        }
        // The fifth wait would be 15 s; it is cut to the 5 s left, and the last look is at the deadline.
        #expect(clock.sleeps == [1, 2, 4, 8, 5])
        #expect(clock.now == TestConfiguration.date.timeIntervalSince1970 + 20)
        #expect(sleeper.recorded.isEmpty)
        #expect(error?.description == "timed out: instances i-1 terminated not reached within 20 s")
    }
}
