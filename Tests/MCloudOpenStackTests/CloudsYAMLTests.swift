import Foundation
@testable import MCloudOpenStack
import Testing

@Suite("clouds.yaml")
struct CloudsYAMLTests {
    /// Writes files into a fresh folder and returns it.
    static func folder(_ files: [String: String]) throws -> String {
        let folder = NSTemporaryDirectory() + "mcloud-os-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(toFile: "\(folder)/\(name)", atomically: true, encoding: .utf8) }
        return folder
    }

    static let clouds = """
    clouds:
      lab:
        auth:
          auth_url: https://keystone.example:5000
          username: alice
          user_domain_name: Default
          project_name: web
          project_domain_id: default
        region_name: RegionTwo
        interface: internal
        cacert: ca.pem
      app:
        auth_type: v3applicationcredential
        auth:
          auth_url: https://keystone.example:5000/v3
          application_credential_id: "1234"
          application_credential_secret: s3cret
        verify: false

    """

    @Test("a cloud named by OS_CLOUD is read from an allowed ./clouds.yaml with secure.yaml's password merged in")
    func passwordCloud() throws {
        let folder = try Self.folder(["clouds.yaml": Self.clouds, "secure.yaml": "clouds:\n  lab:\n    auth:\n      password: 12345\n"])
        let cloud = try CloudsYAML.load(environment: ["OS_CLOUD": "lab", CloudsYAML.allowWorkingDirectoryVariable: "1"], currentDirectory: folder)
        #expect(cloud.authURL == "https://keystone.example:5000")
        #expect(cloud.auth == .password(
            user: .init(name: "alice", domainName: "Default"), password: "12345", project: .init(name: "web", domainID: "default")
        ))
        #expect(cloud.regionName == "RegionTwo")
        #expect(cloud.interface == "internal")
        #expect(cloud.caCertificateFile == "\(folder)/ca.pem")
        #expect(cloud.verify)
        #expect(!cloud.auth.description.contains("12345"))
    }

    @Test("an application credential cloud from OS_CLIENT_CONFIG_FILE keeps verify: false")
    func applicationCredential() throws {
        let folder = try Self.folder(["other.yaml": Self.clouds])
        let cloud = try CloudsYAML.load(cloud: "app", environment: ["OS_CLIENT_CONFIG_FILE": "\(folder)/other.yaml"], currentDirectory: "/nonexistent")
        #expect(cloud.auth == .applicationCredential(id: "1234", name: nil, secret: "s3cret", user: nil))
        #expect(!cloud.verify)
        #expect(!cloud.auth.description.contains("s3cret"))
    }

    @Test("OS_* variables describe a cloud when no cloud is named")
    func environmentVariables() throws {
        let cloud = try CloudsYAML.load(environment: [
            "OS_AUTH_URL": "http://k:5000/v3", "OS_USERNAME": "bob", "OS_PASSWORD": "pw", "OS_PROJECT_ID": "p1",
            "OS_USER_DOMAIN_ID": "default", "OS_REGION_NAME": "R", "OS_INSECURE": "true",
        ], currentDirectory: "/nonexistent")
        #expect(cloud.auth == .password(user: .init(name: "bob", domainID: "default"), password: "pw", project: .init(id: "p1")))
        #expect(cloud.regionName == "R")
        #expect(!cloud.verify)
    }

    @Test("problems name the file, the cloud and what is wrong", arguments: [
        ("clouds:\n  lab:\n    auth:\n      username: a\n", "lab", "clouds.yaml:3:5: clouds.yaml: cloud \"lab\": auth.auth_url (OS_AUTH_URL) is missing"),
        ("clouds:\n  lab:\n    auth:\n      auth_url: http://k\n      username: a\n      user_domain_name: D\n", "lab", "auth.password (OS_PASSWORD, or in secure.yaml) is missing"),
        ("clouds:\n  lab:\n    auth:\n      auth_url: http://k\n      username: a\n      password: p\n", "lab", "auth.user_domain_name or auth.user_domain_id"),
        ("clouds:\n  lab: {}\n  dev: {}\n", "prod", "clouds.yaml: clouds.yaml: cloud \"prod\" is not defined; the file defines dev, lab"),
        ("clouds:\n  lab:\n    auth_type: token\n    auth:\n      auth_url: http://k\n", "lab", "clouds.yaml:3:16: clouds.yaml: cloud \"lab\": auth_type \"token\" is not supported"),
        ("clouds:\n  lab:\n    verify: maybe\n    auth:\n      auth_url: http://k\n      application_credential_id: x\n      application_credential_secret: y\n    auth_type: v3applicationcredential\n", "lab", "clouds.yaml:3:13: clouds.yaml: clouds.lab.verify must be true or false"),
        ("clouds:\n  lab:\n    auth: [1]\n", "lab", "clouds.yaml:3:11: clouds.yaml: clouds.lab.auth must be a mapping, found a list"),
        ("clouds:\n  lab: {\n", "lab", "clouds.yaml:"),
    ])
    func errors(text: String, cloud: String, expected: String) throws {
        let folder = try Self.folder(["clouds.yaml": text])
        #expect {
            try CloudsYAML.load(cloud: cloud, environment: [CloudsYAML.allowWorkingDirectoryVariable: "1"], currentDirectory: folder)
        } throws: { error in
            let message = (error as? OpenStackError)?.description ?? ""
            return message.contains(expected) && message.contains(folder)
        }
    }

    @Test("no cloud chosen and no OS_AUTH_URL is an error that says how to choose")
    func noCloud() {
        #expect(throws: OpenStackError.self) { try CloudsYAML.load(environment: [:], currentDirectory: "/nonexistent") }
    }

    /// What a checkout's `./clouds.yaml` may do when the operator keeps the real one in `~/.config/openstack`.
    struct WorkingDirectoryCase: Sendable, CustomTestStringConvertible {
        var behaviour: String
        var allowed: Bool
        var operatorHasClouds: Bool
        /// The Keystone URL loaded, or a part of the error.
        var loaded: String?
        var error: String?
        var testDescription: String { behaviour }
    }

    static let hostile = "clouds:\n  lab:\n    auth:\n      auth_url: http://127.0.0.1:9/evil\n      username: alice\n      user_domain_name: Default\n"
    static let operatorClouds = "clouds:\n  lab:\n    auth:\n      auth_url: https://keystone.example:5000\n      username: alice\n      user_domain_name: Default\n"

    @Test(arguments: [
        WorkingDirectoryCase(
            behaviour: "a checkout's clouds.yaml is ignored by default and the operator's is read", allowed: false, operatorHasClouds: true,
            loaded: "https://keystone.example:5000"
        ),
        WorkingDirectoryCase(
            behaviour: "with no other clouds.yaml the error names the variable that allows the checkout's", allowed: false, operatorHasClouds: false,
            error: "read only with MCLOUD_ALLOW_CWD_CLOUDS_YAML=1"
        ),
        WorkingDirectoryCase(
            behaviour: "an allowed checkout's clouds.yaml never gets the operator's secure.yaml password", allowed: true, operatorHasClouds: true,
            error: "auth.password (OS_PASSWORD, or in secure.yaml) is missing"
        ),
    ])
    func aWorkingDirectoryCloudsYAMLNeverReceivesTheOperatorsPassword(_ test: WorkingDirectoryCase) throws {
        let checkout = try Self.folder(["clouds.yaml": Self.hostile])
        let home = try Self.folder([:])
        let openstack = "\(home)/.config/openstack"
        try FileManager.default.createDirectory(atPath: openstack, withIntermediateDirectories: true)
        try "clouds:\n  lab:\n    auth:\n      password: operator-secret\n".write(toFile: "\(openstack)/secure.yaml", atomically: true, encoding: .utf8)
        if test.operatorHasClouds { try Self.operatorClouds.write(toFile: "\(openstack)/clouds.yaml", atomically: true, encoding: .utf8) }
        var environment = ["OS_CLOUD": "lab", "HOME": home]
        if test.allowed { environment[CloudsYAML.allowWorkingDirectoryVariable] = "1" }
        do throws(OpenStackError) {
            let cloud = try CloudsYAML.load(environment: environment, currentDirectory: checkout)
            #expect(cloud.authURL == test.loaded)
            #expect(test.error == nil)
        } catch {
            #expect(test.error.map(error.description.contains) == true, "\(error)")
        }
    }
}
