import Foundation

/// A rendered tree against a directory: which of the entries `render` owns there (`TreeWriter.managedEntries`) hold
/// files the render would add, change or remove. Everything else in the directory is not compared, as a render does
/// not touch it.
public struct TreeComparison: Sendable, Equatable {
    public enum Difference: Sendable, Equatable {
        /// The render writes a file the directory lacks.
        case added(path: String)
        /// Both have the file, with other contents: the directory's, then the render's.
        case changed(path: String, committed: String, rendered: String)
        /// The directory has a file the render would remove.
        case removed(path: String)

        public var path: String {
            switch self {
            case .added(let path), .changed(let path, _, _), .removed(let path): return path
            }
        }
    }

    /// Sorted by path.
    public var differences: [Difference]

    public var isIdentical: Bool { differences.isEmpty }

    /// Compares every file of `tree` and `marker` with `directory`; an unreadable directory or file fails.
    public static func compare(_ tree: RenderedTree, marker: RenderMarker, with directory: String) throws(TreeWriter.Failure) -> TreeComparison {
        try requireDirectory(directory)
        var committed: [String: String] = [:]
        for entry in TreeWriter.managedEntries {
            try collect(entry, under: directory, into: &committed)
        }
        var differences: [Difference] = []
        for file in tree.files + [marker.treeFile] {
            switch committed.removeValue(forKey: file.path) {
            case nil: differences.append(.added(path: file.path))
            case let contents? where contents != file.contents:
                differences.append(.changed(path: file.path, committed: contents, rendered: file.contents))
            default: break
            }
        }
        differences += committed.keys.map { .removed(path: $0) }
        return TreeComparison(differences: differences.sorted { $0.path < $1.path })
    }

    /// Fails unless `directory` is a directory whose entries can be listed.
    public static func requireDirectory(_ directory: String) throws(TreeWriter.Failure) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw TreeWriter.Failure(description: "\(directory) does not exist; render it with --out \(directory) first")
        }
        guard isDirectory.boolValue else { throw TreeWriter.Failure(description: "\(directory) is not a directory") }
        do {
            _ = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw TreeWriter.Failure(description: "cannot read the directory \(directory): \(error.localizedDescription)")
        }
    }

    /// Every file at or below `relative` in `root`, read through; a folder or file that cannot be read is an error,
    /// never silently missing from the comparison.
    private static func collect(_ relative: String, under root: String, into files: inout [String: String]) throws(TreeWriter.Failure) {
        let path = root + "/" + relative
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            // Absent is fine; present but not reachable (a dangling or looping link) is not.
            guard (try? FileManager.default.attributesOfItem(atPath: path)) == nil else { throw TreeWriter.Failure(description: "cannot read \(path)") }
            return
        }
        if isDirectory.boolValue {
            let entries: [String]
            do {
                entries = try FileManager.default.contentsOfDirectory(atPath: path)
            } catch {
                throw TreeWriter.Failure(description: "cannot read the directory \(path): \(error.localizedDescription)")
            }
            for entry in entries.sorted() {
                try collect(relative + "/" + entry, under: root, into: &files)
            }
        } else {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw TreeWriter.Failure(description: "cannot read \(path)")
            }
            files[relative] = String(decoding: data, as: UTF8.self)
        }
    }

    /// What `render --check` prints: a summary line, one line per file, and a unified diff of every changed file
    /// (`a/` the directory, `b/` the render, so `git apply` in the directory brings it up to date for those files).
    public func report(directory: String) -> String {
        let counts = [
            ("added", differences.filter { if case .added = $0 { true } else { false } }.count),
            ("changed", differences.filter { if case .changed = $0 { true } else { false } }.count),
            ("removed", differences.filter { if case .removed = $0 { true } else { false } }.count),
        ]
        var out = "\(directory) differs from what mcloud renders now: " + counts.map { "\($0.1) \($0.0)" }.joined(separator: ", ") + "\n"
        for difference in differences {
            let word = switch difference {
            case .added: "added  "
            case .changed: "changed"
            case .removed: "removed"
            }
            out += "  \(word)  \(difference.path)\n"
        }
        for case .changed(let path, let committed, let rendered) in differences {
            out += "\n" + UnifiedDiff.diff(old: committed, new: rendered, oldName: "a/\(path)", newName: "b/\(path)")
        }
        return out
    }
}
