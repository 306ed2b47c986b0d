import Foundation

/// Where the operator's age identity lives and how it is read: the file `MCLOUD_AGE_KEY_FILE` names, else the one
/// `SOPS_AGE_KEY_FILE` names (SOPS's and Flux's variable, so one file serves both), else `~/.config/mcloud/age.key`.
public enum AgeKeyFile {
    public static let variables = ["MCLOUD_AGE_KEY_FILE", "SOPS_AGE_KEY_FILE"]
    public static let defaultPath = ".config/mcloud/age.key"

    public static func path(environment: [String: String]) -> String {
        for variable in variables {
            if let path = environment[variable], !path.isEmpty { return path }
        }
        return "\(environment["HOME"] ?? "~")/\(defaultPath)"
    }

    public static func load(environment: [String: String]) throws(SecretsError) -> AgeIdentity {
        try load(path: path(environment: environment))
    }

    public static func load(path: String) throws(SecretsError) -> AgeIdentity {
        guard FileManager.default.fileExists(atPath: path) else { throw .keyFileMissing(path: path) }
        guard let data = FileManager.default.contents(atPath: path) else { throw .keyFileUnreadable(path: path) }
        return try identity(in: String(decoding: data, as: UTF8.self), path: path)
    }

    /// The one identity of an age-keygen file: comments (`#`) and blank lines aside, exactly one
    /// `AGE-SECRET-KEY-1...` line. Several are refused: the derivation needs one root, and taking the first would
    /// change every secret when the lines were reordered.
    public static func identity(in text: String, path: String) throws(SecretsError) -> AgeIdentity {
        var found: [AgeIdentity] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            do {
                found.append(try AgeIdentity(parsing: trimmed))
            } catch {
                throw .keyFileMalformed(path: path, reason: "has on line \(index + 1) something that is not an age identity (AGE-SECRET-KEY-1...)")
            }
        }
        guard found.count == 1, let identity = found.first else {
            throw .keyFileMalformed(path: path, reason: "holds \(found.count) age identities; mcloud derives its secrets from exactly one")
        }
        return identity
    }
}
