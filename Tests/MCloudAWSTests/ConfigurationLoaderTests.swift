import Foundation
import Testing
@testable import MCloudAWS

/// Credentials, region and endpoints read like the AWS CLI: environment, then the profile in the shared files.
struct ConfigurationLoaderTests {
    /// A HOME with ~/.aws/credentials and ~/.aws/config written from the given texts.
    struct Home {
        let path: String

        init(credentials: String? = nil, config: String? = nil) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-aws-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path + "/.aws", withIntermediateDirectories: true)
            if let credentials { try Data(credentials.utf8).write(to: URL(fileURLWithPath: path + "/.aws/credentials")) }
            if let config { try Data(config.utf8).write(to: URL(fileURLWithPath: path + "/.aws/config")) }
        }

        func environment(_ extra: [String: String] = [:]) -> [String: String] {
            ["HOME": path].merging(extra) { $1 }
        }
    }

    static let files = (
        credentials: """
        # team keys
        [default]
        aws_access_key_id = AKIADEFAULT
        aws_secret_access_key = default-secret

        [backup]
        aws_access_key_id=AKIABACKUP
        aws_secret_access_key=backup-secret
        aws_session_token=backup-token
        """,
        config: """
        [default]
        region = eu-west-1

        [profile backup]
        region = eu-central-1
        s3 =
          addressing_style = path
        endpoint_url = http://127.0.0.1:9000

        [profile only-config]
        aws_access_key_id = AKIACONFIG
        aws_secret_access_key = config-secret
        region = us-west-2
        """
    )

    @Test("environment keys win over the profile, and AWS_REGION over AWS_DEFAULT_REGION")
    func environmentFirst() throws {
        let home = try Home(credentials: Self.files.credentials, config: Self.files.config)
        let loaded = try AWSConfigurationLoader.load(environment: home.environment([
            "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_SESSION_TOKEN": "env-token",
            "AWS_REGION": "ap-south-1", "AWS_DEFAULT_REGION": "sa-east-1",
        ]))
        #expect(loaded.credentials == AWSCredentials(accessKeyID: "AKIAENV", secretAccessKey: "env-secret", sessionToken: "env-token"))
        #expect(loaded.region == "ap-south-1")
    }

    struct ProfileCase: Sendable, CustomTestStringConvertible {
        var environment: [String: String]
        var keyID: String
        var token: String?
        var region: String
        var testDescription: String { environment["AWS_PROFILE"] ?? "default" }
    }

    @Test("a profile's keys come from the credentials file or the config file, its region from [profile NAME]", arguments: [
        ProfileCase(environment: [:], keyID: "AKIADEFAULT", region: "eu-west-1"),
        ProfileCase(environment: ["AWS_PROFILE": "backup"], keyID: "AKIABACKUP", token: "backup-token", region: "eu-central-1"),
        ProfileCase(environment: ["AWS_PROFILE": "only-config"], keyID: "AKIACONFIG", region: "us-west-2"),
        ProfileCase(environment: ["AWS_PROFILE": "backup", "AWS_DEFAULT_REGION": "us-east-2"], keyID: "AKIABACKUP", token: "backup-token", region: "us-east-2"),
    ])
    func profiles(_ testCase: ProfileCase) throws {
        let home = try Home(credentials: Self.files.credentials, config: Self.files.config)
        let loaded = try AWSConfigurationLoader.load(environment: home.environment(testCase.environment))
        #expect(loaded.credentials.accessKeyID == testCase.keyID)
        #expect(loaded.credentials.sessionToken == testCase.token)
        #expect(loaded.region == testCase.region)
        #expect(loaded.profile == (testCase.environment["AWS_PROFILE"] ?? "default"))
    }

    @Test("AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE replace the files under ~/.aws")
    func filesFromEnvironment() throws {
        let home = try Home()
        let other = try Home(credentials: "[x]\naws_access_key_id = AKIAX\naws_secret_access_key = s\n", config: "[profile x]\nregion = eu-north-1\n")
        let loaded = try AWSConfigurationLoader.load(environment: home.environment([
            "AWS_PROFILE": "x", "AWS_SHARED_CREDENTIALS_FILE": other.path + "/.aws/credentials", "AWS_CONFIG_FILE": other.path + "/.aws/config",
        ]))
        #expect(loaded.credentials.accessKeyID == "AKIAX")
        #expect(loaded.region == "eu-north-1")
    }

    @Test("endpoints: AWS_ENDPOINT_URL_<SERVICE> over AWS_ENDPOINT_URL over the profile's endpoint_url over AWS")
    func endpoints() throws {
        let home = try Home(credentials: Self.files.credentials, config: Self.files.config)
        let plain = try AWSConfigurationLoader.load(environment: home.environment())
        #expect(plain.endpoint(for: .ec2) == "https://ec2.eu-west-1.amazonaws.com")
        #expect(plain.endpoint(for: .cloudFront) == "https://cloudfront.amazonaws.com")
        #expect(!plain.isCustomEndpoint(.s3))
        let profile = try AWSConfigurationLoader.load(environment: home.environment(["AWS_PROFILE": "backup"]))
        #expect(profile.endpoint(for: .s3) == "http://127.0.0.1:9000")
        let overridden = try AWSConfigurationLoader.load(environment: home.environment([
            "AWS_PROFILE": "backup", "AWS_ENDPOINT_URL": "http://127.0.0.1:4566/", "AWS_ENDPOINT_URL_S3": "https://minio.example:9000",
        ]))
        #expect(overridden.endpoint(for: .s3) == "https://minio.example:9000")
        #expect(overridden.endpoint(for: .ec2) == "http://127.0.0.1:4566")
    }

    @Test("configuration errors name what is missing, the profile and the file", arguments: [
        (["AWS_PROFILE": "nope"], "profile 'nope' (AWS_PROFILE) is in neither"),
        (["AWS_ACCESS_KEY_ID": "AKIA"], "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"),
        (["AWS_PROFILE": "half"], "profile 'half' in"),
        (["AWS_PROFILE": "noregion"], "no region: set AWS_REGION"),
        (["AWS_ENDPOINT_URL_S3": "minio:9000"], "AWS_ENDPOINT_URL_S3 is not an http(s) URL"),
    ])
    func errors(_ environment: [String: String], _ expected: String) throws {
        let home = try Home(
            credentials: Self.files.credentials + "\n[half]\naws_access_key_id = AKIAHALF\n[noregion]\naws_access_key_id = A\naws_secret_access_key = secret-noregion\n",
            config: Self.files.config
        )
        let error = #expect(throws: AWSError.self) { try AWSConfigurationLoader.load(environment: home.environment(environment)) }
        let message = error?.description ?? ""
        #expect(message.contains(expected), "\(message)")
        #expect(!message.contains("-secret") && !message.contains("secret-"), "a secret value leaked: \(message)")
    }

    @Test("no credentials anywhere names both files")
    func nothing() throws {
        let home = try Home()
        let error = #expect(throws: AWSError.self) { try AWSConfigurationLoader.load(environment: home.environment(["AWS_REGION": "us-east-1"])) }
        #expect(error?.description.contains("\(home.path)/.aws/credentials") == true)
        #expect(error?.description.contains("\(home.path)/.aws/config") == true)
    }

    @Test("a malformed shared file is reported with its path and line")
    func malformed() throws {
        let home = try Home(credentials: "[default]\nthis line has no equals sign\n")
        let error = #expect(throws: AWSError.self) { try AWSConfigurationLoader.load(environment: home.environment()) }
        #expect(error?.description.contains("\(home.path)/.aws/credentials:2: expected key = value") == true)
    }

    @Test("printing credentials or a configuration never shows the secret key or the token")
    func redaction() {
        let credentials = AWSCredentials(accessKeyID: "AKIAPRINT", secretAccessKey: "very-secret-key", sessionToken: "session-token-value")
        let configuration = AWSConfiguration(credentials: credentials, region: "us-east-1")
        for text in [credentials.description, String(describing: credentials), String(reflecting: credentials), configuration.description, "\(configuration)"] {
            #expect(text.contains("AKIAPRINT"))
            #expect(!text.contains("very-secret-key"))
            #expect(!text.contains("session-token-value"))
        }
    }
}
