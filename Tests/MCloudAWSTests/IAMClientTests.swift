import MCloudHTTP
import Testing
@testable import MCloudAWS

/// `IAMClient` against recorded IAM answers: what it sends and how it reads what comes back.
struct IAMClientTests {
    static let namespace = "xmlns=\"https://iam.amazonaws.com/doc/2010-05-08/\""

    static func answer(_ action: String, _ result: String) -> HTTPResponse {
        .xml(200, "<\(action)Response \(namespace)><\(action)Result>\(result)</\(action)Result><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></\(action)Response>")
    }

    static func sentForm(_ request: HTTPRequest) -> String { String(decoding: request.body ?? [], as: UTF8.self) }

    @Test func aCreatedUserIsSentToTheGlobalEndpointSignedForUSEast1WithItsPathAndTags() async throws {
        let transport = ScriptedTransport([
            Self.answer(
                "CreateUser",
                """
                <User><Path>/mcloud/</Path><UserName>mcloud-backup-1</UserName><UserId>AIDAEXAMPLE</UserId>\
                <Arn>arn:aws:iam::123456789012:user/mcloud/mcloud-backup-1</Arn><CreateDate>2026-12-05T11:00:00Z</CreateDate>\
                <Tags><member><Key>mcloud.io/address</Key><Value>aws.eu/BackupIdentity/shop.db</Value></member></Tags></User>
                """
            )
        ])
        let iam = IAMClient(client: TestConfiguration.client(transport, region: "eu-central-1"))
        let user = try await iam.createUser(name: "mcloud-backup-1", path: "/mcloud/", tags: ["mcloud.io/address": "aws.eu/BackupIdentity/shop.db"])
        #expect(user == .init(name: "mcloud-backup-1", path: "/mcloud/", id: "AIDAEXAMPLE", arn: "arn:aws:iam::123456789012:user/mcloud/mcloud-backup-1", tags: ["mcloud.io/address": "aws.eu/BackupIdentity/shop.db"]))
        let request = try #require(transport.sent.first)
        #expect(request.url == "https://iam.amazonaws.com/")
        #expect(request.headers.contains { $0.name == "Authorization" && $0.value.contains("/us-east-1/iam/aws4_request") })
        let form = Self.sentForm(request)
        for part in ["Action=CreateUser", "Version=2010-05-08", "Path=%2Fmcloud%2F", "Tags.member.1.Key=mcloud.io%2Faddress", "Tags.member.1.Value=aws.eu%2FBackupIdentity%2Fshop.db"] {
            #expect(form.contains(part), "\(part) in \(form)")
        }
    }

    @Test func aMissingUserOrPolicyIsNilAndADeletedOneCountsAsDeleted() async throws {
        let noSuchEntity = HTTPResponse.xml(
            404, "<ErrorResponse \(Self.namespace)><Error><Type>Sender</Type><Code>NoSuchEntity</Code><Message>The user with name x cannot be found.</Message></Error><RequestId>r</RequestId></ErrorResponse>"
        )
        let iam = IAMClient(client: TestConfiguration.client(ScriptedTransport(Array(repeating: noSuchEntity, count: 5))))
        #expect(try await iam.user(named: "x") == nil)
        #expect(try await iam.userPolicy(userName: "x", policyName: "p") == nil)
        try await iam.deleteUser(name: "x")
        try await iam.deleteUserPolicy(userName: "x", policyName: "p")
        try await iam.deleteAccessKey(userName: "x", id: "AKIA")
    }

    @Test func aPolicyDocumentIsReadPercentEncodedAsIAMSendsItAndPlainAsMotoDoes() async throws {
        let document = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::b/db.0/*"}]}"#
        let encoded = PercentEncoding.encode(document)
        let transport = ScriptedTransport([
            Self.answer("GetUserPolicy", "<UserName>u</UserName><PolicyName>p</PolicyName><PolicyDocument>\(encoded)</PolicyDocument>"),
            Self.answer("GetUserPolicy", "<UserName>u</UserName><PolicyName>p</PolicyName><PolicyDocument>\(XMLNode.escape(document))</PolicyDocument>"),
        ])
        let iam = IAMClient(client: TestConfiguration.client(transport))
        #expect(try await iam.userPolicy(userName: "u", policyName: "p") == document)
        #expect(try await iam.userPolicy(userName: "u", policyName: "p") == document)
    }

    @Test func usersAreListedOverEveryPageByMarker() async throws {
        func member(_ name: String) -> String { "<member><Path>/mcloud/</Path><UserName>\(name)</UserName><UserId>id-\(name)</UserId><Arn>arn:aws:iam::1:user/mcloud/\(name)</Arn></member>" }
        let transport = ScriptedTransport([
            Self.answer("ListUsers", "<Users>\(member("a"))\(member("b"))</Users><IsTruncated>true</IsTruncated><Marker>m1</Marker>"),
            Self.answer("ListUsers", "<Users>\(member("c"))</Users><IsTruncated>false</IsTruncated>"),
        ])
        let iam = IAMClient(client: TestConfiguration.client(transport))
        #expect(try await iam.listUsers(pathPrefix: "/mcloud/").map(\.name) == ["a", "b", "c"])
        #expect(Self.sentForm(transport.sent[0]).contains("PathPrefix=%2Fmcloud%2F"))
        #expect(!Self.sentForm(transport.sent[0]).contains("Marker"))
        #expect(Self.sentForm(transport.sent[1]).contains("Marker=m1"))
    }

    @Test func aListingThatRepeatsItsMarkerIsStoppedNamingTheOperation() async throws {
        let page = Self.answer("ListAccessKeys", "<AccessKeyMetadata/><IsTruncated>true</IsTruncated><Marker>same</Marker>")
        let iam = IAMClient(client: TestConfiguration.client(ScriptedTransport([page, page, page])))
        let error = await #expect(throws: AWSError.self) { try await iam.listAccessKeys(userName: "u") }
        #expect(error?.description.contains("iam ListAccessKeys") == true)
    }

    @Test func aNewKeyCarriesItsSecretAndAnAnswerWithoutOneIsRefused() async throws {
        let transport = ScriptedTransport([
            Self.answer(
                "CreateAccessKey",
                "<AccessKey><UserName>u</UserName><AccessKeyId>AKIANEW</AccessKeyId><Status>Active</Status><SecretAccessKey>s3cr3t</SecretAccessKey></AccessKey>"
            ),
            Self.answer("CreateAccessKey", "<AccessKey><UserName>u</UserName><AccessKeyId>AKIANEW</AccessKeyId><Status>Active</Status></AccessKey>"),
        ])
        let iam = IAMClient(client: TestConfiguration.client(transport))
        let key = try await iam.createAccessKey(userName: "u")
        #expect(key.key == .init(id: "AKIANEW", userName: "u", status: "Active"))
        #expect(key.credentials.secretAccessKey == "s3cr3t")
        let error = await #expect(throws: AWSError.self) { try await iam.createAccessKey(userName: "u") }
        #expect(error?.description.contains("iam CreateAccessKey") == true)
    }
}
