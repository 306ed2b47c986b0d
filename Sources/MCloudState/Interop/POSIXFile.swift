import MCloudProvider
import Foundation

/// The file operations the file backend needs, each a few POSIX calls whose failures become `StateError.system`
/// through one helper. Plain POSIX rather than `FileManager`: atomic replacement needs fsync of the file and of its
/// folder, and the lock needs `O_CREAT | O_EXCL`, neither of which `FileManager` offers.
enum POSIXFile {
    /// The whole file, or nil when it does not exist.
    static func read(_ path: String) throws(StateError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0, errno == ENOENT { return nil }
        let file = try check("open", path, descriptor)
        defer { close(file) }
        var status = stat()
        _ = try check("stat", path, fstat(file, &status))
        // Read straight into one array of the file's size: reading 64-KiB chunks and appending them copied a
        // 20-MiB state about three times (a fifth of the state's read). A file that grew meanwhile is read on below.
        var failure: StateError?
        var bytes = [UInt8](unsafeUninitializedCapacity: max(0, Int(status.st_size))) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            while initialized < buffer.count {
                do throws(StateError) {
                    let count = try check("read", path, Foundation.read(file, base + initialized, buffer.count - initialized))
                    if count == 0 { return }
                    initialized += count
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = try check("read", path, chunk.withUnsafeMutableBytes { Foundation.read(file, $0.baseAddress, $0.count) })
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }

    /// Replaces `path` with `bytes` so that a reader, or a crash at any point, sees either the old file or the new
    /// one: a temporary file in the same folder (so the rename stays on one file system), fsync, rename, then fsync
    /// of the folder so the rename itself survives a power loss.
    static func replace(_ path: String, with bytes: [UInt8]) throws(StateError) {
        let temporary = path + ".tmp-" + UUID().uuidString.lowercased()
        do throws(StateError) {
            let file = try check("create", temporary, open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600))
            defer { close(file) }
            try writeAll(bytes, to: file, path: temporary)
            try check("fsync", temporary, fsync(file))
            try check("rename into place", temporary, rename(temporary, path))
        } catch {
            unlink(temporary)
            throw error
        }
        try syncFolder(of: path)
    }

    /// Creates `path` holding `bytes`, or returns false when it already exists; used for the lock, so two processes
    /// racing for it cannot both succeed.
    static func createExclusively(_ path: String, with bytes: [UInt8]) throws(StateError) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if descriptor < 0, errno == EEXIST { return false }
        let file = try check("create", path, descriptor)
        do throws(StateError) {
            defer { close(file) }
            try writeAll(bytes, to: file, path: path)
            try check("fsync", path, fsync(file))
        } catch {
            unlink(path)
            throw error
        }
        try syncFolder(of: path)
        return true
    }

    static func remove(_ path: String) throws(StateError) {
        try check("remove", path, unlink(path))
        try syncFolder(of: path)
    }

    /// Creates the folder and its parents when missing.
    static func createFolder(_ path: String) throws(StateError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            if mkdir(prefix, 0o755) != 0, errno != EEXIST { throw .system(operation: "create the folder", path: prefix, errno: errno) }
            prefix += "/"
        }
    }

    private static func writeAll(_ bytes: [UInt8], to file: Int32, path: String) throws(StateError) {
        var offset = 0
        while offset < bytes.count {
            offset += try check("write", path, bytes[offset...].withUnsafeBytes { Foundation.write(file, $0.baseAddress, $0.count) })
        }
    }

    private static func syncFolder(of path: String) throws(StateError) {
        let folder = folder(of: path)
        let directory = try check("open the folder", folder, open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC))
        defer { close(directory) }
        try check("fsync the folder", folder, fsync(directory))
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The one place a system call's -1 becomes an error naming the operation, the file and errno.
    @discardableResult
    private static func check<Result: BinaryInteger>(_ operation: String, _ path: String, _ result: Result) throws(StateError) -> Result {
        guard result >= 0 else { throw .system(operation: operation, path: path, errno: errno) }
        return result
    }
}
