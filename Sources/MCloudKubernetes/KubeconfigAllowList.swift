import Foundation

/// The kubeconfig files a catalog may name in `endpoints.kubernetes.kubeconfig`: the operator's own (`KUBECONFIG`,
/// else `~/.kube/config`) and those listed in `MCLOUD_ALLOWED_KUBECONFIGS`. A kubeconfig runs its exec plugin and
/// sends its `tokenFile` and client key to its `server`, so one that a merge request adds must not be used just
/// because the catalog names it.
public struct KubeconfigAllowList: Sendable {
    /// Colon-separated paths, as `KUBECONFIG`.
    public static let variable = "MCLOUD_ALLOWED_KUBECONFIGS"

    private let allowed: Set<String>
    private let currentDirectory: String

    /// Relative paths are resolved against `currentDirectory`, by default the process's, as the loader reads them.
    public init(environment: [String: String], currentDirectory: String? = nil) {
        let currentDirectory = currentDirectory ?? FileManager.default.currentDirectoryPath
        self.currentDirectory = currentDirectory
        var paths = Self.split(environment[Self.variable] ?? "")
        let standard = Self.split(environment["KUBECONFIG"] ?? "")
        if !standard.isEmpty {
            paths += standard
        } else if let home = environment["HOME"] {
            paths.append("\(home)/.kube/config")
        }
        allowed = Set(paths.map { Self.canonical($0, currentDirectory) })
    }

    /// The files of `list` (colon-separated, as `KUBECONFIG` reads it) that the operator has not allowed.
    public func refused(_ list: String) -> [String] {
        Self.split(list).filter { !allowed.contains(Self.canonical($0, currentDirectory)) }
    }

    private static func split(_ list: String) -> [String] {
        list.split(separator: ":").map(String.init).filter { !$0.isEmpty }
    }

    /// Absolute, without `.`, `..` or symbolic links, so that no other spelling of a file escapes the list.
    private static func canonical(_ path: String, _ directory: String) -> String {
        let absolute = path.hasPrefix("/") ? path : "\(directory)/\(path)"
        return URL(fileURLWithPath: absolute).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
