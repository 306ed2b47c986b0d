import Foundation

/// Reads credentials, region and endpoints like the AWS CLI and SDKs: environment first, then the profile
/// (`AWS_PROFILE`, else `default`) in `~/.aws/credentials` and `~/.aws/config` (`[profile NAME]` sections).
public enum AWSConfigurationLoader {
    public static func load(environment: [String: String]) throws(AWSError) -> AWSConfiguration {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let credentialsPath = expand(environment["AWS_SHARED_CREDENTIALS_FILE"] ?? "~/.aws/credentials", home: home)
        let configPath = expand(environment["AWS_CONFIG_FILE"] ?? "~/.aws/config", home: home)
        let explicitProfile = nonEmpty(environment["AWS_PROFILE"]) ?? nonEmpty(environment["AWS_DEFAULT_PROFILE"])
        let profile = explicitProfile ?? "default"

        let credentialsFile = try INIFile.read(credentialsPath)
        let configFile = try INIFile.read(configPath)
        let fromCredentials = credentialsFile?.sections[profile]
        let fromConfig = configFile?.sections[profile == "default" ? "default" : "profile \(profile)"] ?? configFile?.sections[profile == "default" ? "profile default" : profile]
        if let explicitProfile, fromCredentials == nil, fromConfig == nil {
            throw .configuration("profile '\(explicitProfile)' (AWS_PROFILE) is in neither \(credentialsPath) nor \(configPath) (as [profile \(explicitProfile)])")
        }

        let credentials: AWSCredentials
        let keyID = nonEmpty(environment["AWS_ACCESS_KEY_ID"])
        let secret = nonEmpty(environment["AWS_SECRET_ACCESS_KEY"])
        if let keyID, let secret {
            credentials = AWSCredentials(accessKeyID: keyID, secretAccessKey: secret, sessionToken: nonEmpty(environment["AWS_SESSION_TOKEN"]))
        } else if keyID != nil || secret != nil {
            throw .configuration(keyID == nil ? "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not" : "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")
        } else if let found = try profileCredentials(fromCredentials, file: credentialsPath, profile: profile) {
            credentials = found
        } else if let found = try profileCredentials(fromConfig, file: configPath, profile: profile) {
            credentials = found
        } else {
            throw .configuration("no credentials: AWS_ACCESS_KEY_ID is not set and profile '\(profile)' has no aws_access_key_id in \(credentialsPath) or \(configPath)")
        }

        guard let region = nonEmpty(environment["AWS_REGION"]) ?? nonEmpty(environment["AWS_DEFAULT_REGION"]) ?? nonEmpty(fromConfig?["region"]) else {
            throw .configuration("no region: set AWS_REGION (or AWS_DEFAULT_REGION), or region in profile '\(profile)' of \(configPath)")
        }
        var serviceEndpoints: [String: String] = [:]
        for (name, value) in environment where name.hasPrefix("AWS_ENDPOINT_URL_") && !value.isEmpty {
            serviceEndpoints[String(name.dropFirst("AWS_ENDPOINT_URL_".count))] = try checkedURL(value, source: name)
        }
        var endpoint: String?
        if let url = nonEmpty(environment["AWS_ENDPOINT_URL"]) {
            endpoint = try checkedURL(url, source: "AWS_ENDPOINT_URL")
        } else if let url = nonEmpty(fromConfig?["endpoint_url"]) {
            endpoint = try checkedURL(url, source: "endpoint_url in profile '\(profile)' of \(configPath)")
        }
        let usedProfile = fromCredentials != nil || fromConfig != nil ? profile : nil
        return AWSConfiguration(credentials: credentials, region: region, endpointURL: endpoint, serviceEndpoints: serviceEndpoints, profile: usedProfile)
    }

    private static func profileCredentials(_ section: [String: String]?, file: String, profile: String) throws(AWSError) -> AWSCredentials? {
        guard let section else { return nil }
        let keyID = nonEmpty(section["aws_access_key_id"])
        let secret = nonEmpty(section["aws_secret_access_key"])
        switch (keyID, secret) {
        case (nil, nil): return nil
        case (let keyID?, let secret?): return AWSCredentials(accessKeyID: keyID, secretAccessKey: secret, sessionToken: nonEmpty(section["aws_session_token"]))
        case (nil, _): throw .configuration("profile '\(profile)' in \(file) has aws_secret_access_key but no aws_access_key_id")
        case (_, nil): throw .configuration("profile '\(profile)' in \(file) has aws_access_key_id but no aws_secret_access_key")
        }
    }

    private static func checkedURL(_ url: String, source: String) throws(AWSError) -> String {
        guard url.hasPrefix("http://") || url.hasPrefix("https://"), URLParts(url).host.isEmpty == false else {
            throw .configuration("\(source) is not an http(s) URL: \(url)")
        }
        return url
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value = value?.trimmed, !value.isEmpty else { return nil }
        return value
    }

    private static func expand(_ path: String, home: String) -> String {
        path == "~" || path.hasPrefix("~/") ? home + path.dropFirst() : path
    }
}

/// The INI dialect of the AWS shared files: `[section]`, `key = value`, `#`/`;` comments, and indented
/// sub-settings (such as `s3 =` blocks), which are skipped.
struct INIFile {
    var sections: [String: [String: String]] = [:]

    /// nil when the file does not exist; an error naming the file and line when it cannot be read.
    static func read(_ path: String) throws(AWSError) -> INIFile? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw .configuration("cannot read \(path)") }
        return try parse(String(decoding: data, as: UTF8.self), file: path)
    }

    static func parse(_ text: String, file: String) throws(AWSError) -> INIFile {
        var result = INIFile()
        var current: String?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.trimmed
            if content.isEmpty || content.hasPrefix("#") || content.hasPrefix(";") { continue }
            if line.first == " " || line.first == "\t" { continue }
            if content.hasPrefix("[") {
                guard content.hasSuffix("]") else { throw .configuration("\(file):\(number + 1): a section header must end with ]") }
                let name = content.dropFirst().dropLast().split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                current = name
                result.sections[name, default: [:]] = result.sections[name] ?? [:]
                continue
            }
            guard let equals = content.firstIndex(of: "=") else { throw .configuration("\(file):\(number + 1): expected key = value") }
            guard let section = current else { throw .configuration("\(file):\(number + 1): a setting before any [section]") }
            let key = content[..<equals].trimmed.lowercased()
            result.sections[section, default: [:]][key] = content[content.index(after: equals)...].trimmed
        }
        return result
    }
}

extension AWSConfigurationLoader {
    /// Whether the AWS credentials or config file has a profile of this name.
    public static func hasProfile(_ name: String, environment: [String: String]) -> Bool {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let files = [environment["AWS_SHARED_CREDENTIALS_FILE"] ?? "\(home)/.aws/credentials", environment["AWS_CONFIG_FILE"] ?? "\(home)/.aws/config"]
        return files.contains { file in
            guard let data = FileManager.default.contents(atPath: file) else { return false }
            return String(decoding: data, as: UTF8.self).split(separator: "\n").contains { line in
                let header = line.trimmingCharacters(in: .whitespaces)
                return header == "[\(name)]" || header == "[profile \(name)]"
            }
        }
    }
}
