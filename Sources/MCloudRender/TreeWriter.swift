import Foundation

/// Writes a rendered tree into an output directory that `mcloud render` owns.
///
/// Ownership: the directory holds a marker file (`RenderMarker`) once mcloud has written it. A directory that is
/// missing, empty or marked is written; any other is refused unless forced. mcloud replaces `bootstrap/`,
/// `clusters/`, `infrastructure/` and the marker whole, so files of cells no longer placed disappear, and leaves
/// every other entry alone (a `.git`, a README, a team's own Argo CD files).
///
/// Atomicity: the new tree is written in full to a staging folder first, inside the directory (so the final renames
/// never cross file systems) or next to it when it does not exist yet. Only then are the entries swapped in by
/// renames, undone if one fails; an error never leaves a half-written tree.
public enum TreeWriter {
    public static let marker = RenderMarker.file
    /// What a render replaces; the marker last, so a directory is only marked once its tree is in place.
    public static let managedEntries = ["bootstrap", "clusters", "infrastructure", marker]
    static let staging = ".mcloud-render.staging"

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes `tree` (every file but the marker) and `marker` into `directory`.
    public static func write(_ tree: RenderedTree, marker: RenderMarker, to directory: String, force: Bool) throws(Failure) {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        let exists = files.fileExists(atPath: directory, isDirectory: &isDirectory)
        if exists, !isDirectory.boolValue {
            throw Failure(description: "\(directory) exists and is not a directory")
        }
        let stage: String
        if exists {
            let entries = try attempt("read the directory", directory) { try files.contentsOfDirectory(atPath: directory) }
                .filter { $0 != staging }.sorted()
            if !entries.isEmpty, !entries.contains(Self.marker), !force {
                let shown = entries.prefix(5).joined(separator: ", ") + (entries.count > 5 ? ", ..." : "")
                throw Failure(description: "\(directory) is not empty and was not written by mcloud render (it holds \(shown)); render into an empty or new directory, or pass --force to let mcloud own it (it replaces bootstrap/, clusters/ and infrastructure/ there and leaves everything else)")
            }
            // A directory rendered before mcloud wrote bootstrap/ may hold one of the team's own.
            if entries.contains("bootstrap"), !force, let old = try RenderMarker.read(directory: directory), old.format < 2 {
                throw Failure(description: "\(directory)/bootstrap was not written by mcloud render (the directory was rendered by an mcloud that wrote no bootstrap/), and a render now replaces it; move it elsewhere, or pass --force to let mcloud replace it")
            }
            stage = directory + "/" + staging
        } else {
            let url = URL(fileURLWithPath: directory)
            let parent = url.deletingLastPathComponent().path
            try attempt("create the directory", parent) { try files.createDirectory(atPath: parent, withIntermediateDirectories: true) }
            stage = parent + "/." + url.lastPathComponent + staging
        }
        // A staging folder left by an interrupted render is ours: start afresh.
        if files.fileExists(atPath: stage) {
            try attempt("remove the leftover staging folder", stage) { try files.removeItem(atPath: stage) }
        }
        do throws(Failure) {
            try writeFiles(tree.files + [marker.treeFile], under: stage)
        } catch {
            try? files.removeItem(atPath: stage)
            throw error
        }
        if exists {
            try swapEntries(from: stage, into: directory)
        } else {
            try attempt("move the new tree into place at", directory) { try files.moveItem(atPath: stage, toPath: directory) }
        }
    }

    private static func writeFiles(_ tree: [RenderedTree.File], under root: String) throws(Failure) {
        let files = FileManager.default
        try attempt("create the directory", root) { try files.createDirectory(atPath: root, withIntermediateDirectories: true) }
        var created: Set<String> = []
        for file in tree {
            let path = root + "/" + file.path
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            if created.insert(folder).inserted {
                try attempt("create the directory", folder) { try files.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            }
            try attempt("write", path) { try Data(file.contents.utf8).write(to: URL(fileURLWithPath: path)) }
        }
    }

    /// Moves each live managed entry aside and the staged one in; on a failure, puts everything back.
    private static func swapEntries(from stage: String, into directory: String) throws(Failure) {
        let files = FileManager.default
        let previous = stage + "/.previous"
        var movedAside: [String] = []
        var movedIn: [String] = []
        do throws(Failure) {
            try attempt("create the directory", previous) { try files.createDirectory(atPath: previous, withIntermediateDirectories: true) }
            for entry in managedEntries {
                let live = directory + "/" + entry
                if files.fileExists(atPath: live) {
                    try attempt("move aside", live) { try files.moveItem(atPath: live, toPath: previous + "/" + entry) }
                    movedAside.append(entry)
                }
                let staged = stage + "/" + entry
                if files.fileExists(atPath: staged) {
                    try attempt("move into place", live) { try files.moveItem(atPath: staged, toPath: live) }
                    movedIn.append(entry)
                }
            }
        } catch {
            for entry in movedIn.reversed() { try? files.removeItem(atPath: directory + "/" + entry) }
            for entry in movedAside.reversed() { try? files.moveItem(atPath: previous + "/" + entry, toPath: directory + "/" + entry) }
            try? files.removeItem(atPath: stage)
            throw error
        }
        // The new tree is in place; a staging folder that cannot be removed now is removed by the next render.
        try? files.removeItem(atPath: stage)
    }

    private static func attempt<T>(_ operation: String, _ path: String, _ body: () throws -> T) throws(Failure) -> T {
        do {
            return try body()
        } catch {
            throw Failure(description: "cannot \(operation) \(path): \(error.localizedDescription)")
        }
    }
}
