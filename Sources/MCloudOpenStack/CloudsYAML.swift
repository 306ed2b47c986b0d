public import Foundation
import MCloudCore
import MCloudYAML

/// Finds and reads clouds.yaml much as openstacksdk does: `OS_CLIENT_CONFIG_FILE`, else the first of
/// `~/.config/openstack/clouds.yaml`, `/etc/openstack/clouds.yaml`; `secure.yaml` (or `OS_SECURE_FILE`) is merged
/// over it, so passwords can live apart. The cloud is the one named, else `OS_CLOUD`; without either, `OS_*`
/// variables (`OS_AUTH_URL`, `OS_USERNAME`, ...) describe the cloud.
///
/// Unlike openstacksdk, `./clouds.yaml` is read only when `MCLOUD_ALLOW_CWD_CLOUDS_YAML=1`: the working directory is
/// usually a checkout that a merge request can change, and a clouds.yaml there would choose where the operator's
/// password is sent. `secure.yaml` is taken only from the folder of the clouds.yaml it completes, for the same reason.
public enum CloudsYAML {
    public static let allowWorkingDirectoryVariable = "MCLOUD_ALLOW_CWD_CLOUDS_YAML"

    /// A value with where it was written: a file position, or the environment variable it came from.
    struct Entry {
        var value: String
        var isNull: Bool
        var bool: Bool?
        var location: SourceLocation?
        var origin: String
    }

    public static func load(
        cloud requested: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) throws(OpenStackError) -> CloudConfig {
        let name = requested ?? environment["OS_CLOUD"].flatMap { $0.isEmpty ? nil : $0 }
        let home = environment["HOME"].map { "\($0)/.config/openstack" }
        let trustsWorkingDirectory = environment[allowWorkingDirectoryVariable] == "1"
        let folders = [trustsWorkingDirectory ? currentDirectory : nil, home, "/etc/openstack"].compactMap { $0 }
        let configFile: String?
        if let explicit = environment["OS_CLIENT_CONFIG_FILE"], !explicit.isEmpty {
            guard FileManager.default.fileExists(atPath: explicit) else {
                throw .configuration("OS_CLIENT_CONFIG_FILE names \(explicit), which does not exist", at: nil, file: nil)
            }
            configFile = explicit
        } else {
            configFile = firstFile(named: "clouds", in: folders)
        }
        guard let name else {
            if environment["OS_AUTH_URL"] != nil { return try resolve(name: "envvars", fields: variables(environment), file: nil, location: nil) }
            throw .configuration("no cloud chosen: set OS_CLOUD or pass a cloud name (or set OS_AUTH_URL and the other OS_* variables)", at: nil, file: configFile)
        }
        guard let configFile else {
            let ignored = !trustsWorkingDirectory && firstFile(named: "clouds", in: [currentDirectory]) != nil
                ? "; the working directory's clouds.yaml is read only with \(allowWorkingDirectoryVariable)=1" : ""
            throw .configuration(
                "cloud \"\(name)\" asked for, but no clouds.yaml was found (looked in \(folders.joined(separator: ", ")))\(ignored)", at: nil, file: nil
            )
        }
        let clouds = try read(file: configFile)
        guard var fields = clouds[name]?.fields, let location = clouds[name]?.location else {
            let known = clouds.keys.sorted()
            throw .configuration(
                "cloud \"\(name)\" is not defined" + (known.isEmpty ? " (the file defines no clouds)" : "; the file defines \(known.joined(separator: ", "))"),
                at: nil, file: configFile
            )
        }
        let configFolder = (configFile as NSString).deletingLastPathComponent
        let secureFile = environment["OS_SECURE_FILE"].flatMap { $0.isEmpty ? nil : $0 } ?? firstFile(named: "secure", in: [configFolder])
        if let secureFile, FileManager.default.fileExists(atPath: secureFile), let secure = try read(file: secureFile)[name] {
            fields.merge(secure.fields) { _, secret in secret }
        }
        return try resolve(name: name, fields: fields, file: configFile, location: location)
    }

    private static func firstFile(named base: String, in folders: [String]) -> String? {
        for folder in folders {
            for suffix in ["yaml", "yml"] where FileManager.default.fileExists(atPath: "\(folder)/\(base).\(suffix)") {
                return "\(folder)/\(base).\(suffix)"
            }
        }
        return nil
    }

    static func read(file: String) throws(OpenStackError) -> [String: (fields: [String: Entry], location: SourceLocation)] {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw .configuration("cannot be read", at: nil, file: file)
        }
        return try parse(Array(data), file: file)
    }

    /// Each cloud as flat keys: top-level scalars (`region_name`) and `auth.` ones (`auth.username`).
    static func parse(_ bytes: [UInt8], file: String) throws(OpenStackError) -> [String: (fields: [String: Entry], location: SourceLocation)] {
        let read = YAMLReader.read(bytes, file: file)
        if let problem = read.diagnostics.first { throw .configuration(problem.message, at: problem.location, file: file) }
        guard let root = read.documents.first?.root else { return [:] }
        guard root.mapping != nil else { throw .configuration("the file must be a mapping with a clouds key, found \(root.kindDescription)", at: root.location, file: file) }
        guard let clouds = root["clouds"] else { return [:] }
        guard let cloudPairs = clouds.mapping else { throw .configuration("clouds must be a mapping, found \(clouds.kindDescription)", at: clouds.location, file: file) }
        var result: [String: (fields: [String: Entry], location: SourceLocation)] = [:]
        for pair in cloudPairs {
            guard let name = pair.key.scalar?.value else { continue }
            guard let settings = pair.value.mapping else {
                throw .configuration("clouds.\(name) must be a mapping, found \(pair.value.kindDescription)", at: pair.value.location, file: file)
            }
            var fields: [String: Entry] = [:]
            for setting in settings {
                guard let key = setting.key.scalar?.value else { continue }
                if key == "auth" {
                    guard let auth = setting.value.mapping else {
                        throw .configuration("clouds.\(name).auth must be a mapping, found \(setting.value.kindDescription)", at: setting.value.location, file: file)
                    }
                    for field in auth {
                        if let authKey = field.key.scalar?.value, let entry = entry(field.value, "clouds.\(name).auth.\(authKey)") { fields["auth.\(authKey)"] = entry }
                    }
                } else if let entry = entry(setting.value, "clouds.\(name).\(key)") {
                    fields[key] = entry
                }
            }
            result[name] = (fields, pair.value.location)
        }
        return result
    }

    private static func entry(_ node: YAMLNode, _ path: String) -> Entry? {
        guard let scalar = node.scalar else { return nil }  // lists and maps (regions, networks) are not used here
        let resolved = scalar.resolved
        var bool: Bool?
        if case .bool(let value) = resolved { bool = value }
        return Entry(value: scalar.value, isNull: resolved == .null, bool: bool, location: node.location, origin: path)
    }

    /// OS_* variables as clouds.yaml keys.
    static func variables(_ environment: [String: String]) -> [String: Entry] {
        let names: [String: String] = [
            "OS_AUTH_URL": "auth.auth_url", "OS_AUTH_TYPE": "auth_type", "OS_USERNAME": "auth.username", "OS_USER_ID": "auth.user_id",
            "OS_PASSWORD": "auth.password", "OS_PROJECT_NAME": "auth.project_name", "OS_PROJECT_ID": "auth.project_id",
            "OS_TENANT_NAME": "auth.project_name", "OS_TENANT_ID": "auth.project_id",
            "OS_USER_DOMAIN_NAME": "auth.user_domain_name", "OS_USER_DOMAIN_ID": "auth.user_domain_id",
            "OS_PROJECT_DOMAIN_NAME": "auth.project_domain_name", "OS_PROJECT_DOMAIN_ID": "auth.project_domain_id",
            "OS_DOMAIN_NAME": "auth.domain_name", "OS_DOMAIN_ID": "auth.domain_id",
            "OS_APPLICATION_CREDENTIAL_ID": "auth.application_credential_id",
            "OS_APPLICATION_CREDENTIAL_NAME": "auth.application_credential_name",
            "OS_APPLICATION_CREDENTIAL_SECRET": "auth.application_credential_secret",
            "OS_REGION_NAME": "region_name", "OS_INTERFACE": "interface", "OS_ENDPOINT_TYPE": "interface", "OS_CACERT": "cacert",
        ]
        var fields: [String: Entry] = [:]
        for (variable, key) in names.sorted(by: { $0.key < $1.key }) {
            guard let value = environment[variable], !value.isEmpty, fields[key] == nil else { continue }
            fields[key] = Entry(value: value, isNull: false, bool: nil, location: nil, origin: variable)
        }
        if let insecure = environment["OS_INSECURE"] {
            fields["verify"] = Entry(value: insecure, isNull: false, bool: !["1", "true", "yes"].contains(insecure.lowercased()), location: nil, origin: "OS_INSECURE")
        }
        return fields
    }

    static func resolve(name: String, fields: [String: Entry], file: String?, location: SourceLocation?) throws(OpenStackError) -> CloudConfig {
        func value(_ key: String) -> String? {
            guard let entry = fields[key], !entry.isNull, !entry.value.isEmpty else { return nil }
            return entry.value
        }
        func missing(_ what: String) -> OpenStackError {
            let origin = file == nil ? "OS_* variables" : "cloud \"\(name)\""
            return .configuration("\(origin): \(what) is missing", at: location, file: file)
        }
        guard let authURL = value("auth.auth_url") else { throw missing("auth.auth_url (OS_AUTH_URL)") }
        let sharedDomainID = value("auth.domain_id"), sharedDomainName = value("auth.domain_name")
        let user = CloudConfig.Scope(
            id: value("auth.user_id"), name: value("auth.username"),
            domainID: value("auth.user_domain_id") ?? sharedDomainID, domainName: value("auth.user_domain_name") ?? sharedDomainName
        )
        let auth: CloudConfig.Auth
        switch value("auth_type") ?? "password" {
        case "password", "v3password":
            guard user.id != nil || user.name != nil else { throw missing("auth.username or auth.user_id (OS_USERNAME)") }
            guard let password = value("auth.password") else { throw missing("auth.password (OS_PASSWORD, or in secure.yaml)") }
            if user.id == nil, user.domainID == nil, user.domainName == nil { throw missing("auth.user_domain_name or auth.user_domain_id (a user by name needs its domain)") }
            let projectID = value("auth.project_id"), projectName = value("auth.project_name")
            var project: CloudConfig.Scope?
            if projectID != nil || projectName != nil {
                project = CloudConfig.Scope(
                    id: projectID, name: projectName,
                    domainID: value("auth.project_domain_id") ?? sharedDomainID, domainName: value("auth.project_domain_name") ?? sharedDomainName
                )
                if projectID == nil, project?.domainID == nil, project?.domainName == nil {
                    throw missing("auth.project_domain_name or auth.project_domain_id (a project by name needs its domain)")
                }
            }
            auth = .password(user: user, password: password, project: project)
        case "v3applicationcredential", "applicationcredential":
            guard let secret = value("auth.application_credential_secret") else { throw missing("auth.application_credential_secret") }
            let id = value("auth.application_credential_id"), credentialName = value("auth.application_credential_name")
            guard id != nil || credentialName != nil else { throw missing("auth.application_credential_id or auth.application_credential_name") }
            if id == nil, user.id == nil, user.name == nil { throw missing("auth.username or auth.user_id (an application credential by name needs its user)") }
            auth = .applicationCredential(id: id, name: credentialName, secret: secret, user: user.id == nil && user.name == nil ? nil : user)
        case let other:
            throw .configuration("cloud \"\(name)\": auth_type \"\(other)\" is not supported (use password or v3applicationcredential)", at: fields["auth_type"]?.location, file: file)
        }
        var verify = true
        if let entry = fields["verify"] {
            guard let flag = entry.bool else { throw .configuration("\(entry.origin) must be true or false", at: entry.location, file: file) }
            verify = flag
        }
        let interface = (value("interface") ?? "public").replacingOccurrences(of: "URL", with: "")
        guard ["public", "internal", "admin"].contains(interface) else {
            throw .configuration("cloud \"\(name)\": interface \"\(interface)\" must be public, internal or admin", at: fields["interface"]?.location, file: file)
        }
        var cacert = value("cacert")
        if let path = cacert, !path.hasPrefix("/"), let file { cacert = (file as NSString).deletingLastPathComponent + "/" + path }
        return CloudConfig(
            name: name, authURL: authURL, auth: auth, regionName: value("region_name"), interface: interface,
            caCertificateFile: cacert, verify: verify, file: file
        )
    }
}
