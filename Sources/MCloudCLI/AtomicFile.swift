import Foundation

/// Writes a file whole or not at all: a temporary file beside it, renamed over it (rename(2) replaces the old one in
/// one step), so a reader never sees half of it and a failure leaves the old one as it was. Plans and reports may
/// hold what a manifest says about a database, so the file is the owner's alone (0600), and the temporary one has a
/// random name and is created with O_EXCL|O_NOFOLLOW: a file or symlink someone planted beside the target is never
/// written through.
enum AtomicFile {
    static let permissions: mode_t = 0o600

    /// False after printing why `what` could not be written. `mode` is for a file another user's process reads, such
    /// as node_exporter the metrics of `status --prometheus`.
    static func write(_ bytes: Data, to path: String, what: String, mode: mode_t = permissions, _ context: CommandContext) -> Bool {
        switch writeTemporary(bytes, beside: path, mode: mode) {
        case .failure(let reason):
            context.stderr.write("error: cannot write \(what) to \(path): \(reason)\n")
            return false
        case .success(let temporary):
            // Not FileManager.replaceItemAt: on Linux it fails over an existing file and leaves neither file behind.
            guard rename(temporary, path) == 0 else {
                let reason = describe(errno)
                unlink(temporary)
                context.stderr.write("error: cannot write \(what) to \(path): \(reason)\n")
                return false
            }
            return true
        }
    }

    struct Failure: Error {
        var reason: String
    }

    /// The temporary file's path once `bytes` are in it, on disk.
    private static func writeTemporary(_ bytes: Data, beside path: String, mode: mode_t) -> Result<String, Failure> {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        for _ in 0..<8 {
            let temporary = (folder.isEmpty ? "" : folder + "/") + ".\(name).tmp-" + String(UInt64.random(in: .min ... .max), radix: 16)
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if descriptor < 0 {
                if errno == EEXIST { continue }
                return .failure(Failure(reason: describe(errno)))
            }
            let written = writeAll(bytes, to: descriptor)
            let synced = written == nil ? (fsync(descriptor) == 0 ? nil : errno) : written
            close(descriptor)
            if let code = synced {
                unlink(temporary)
                return .failure(Failure(reason: describe(code)))
            }
            return .success(temporary)
        }
        return .failure(Failure(reason: "no unused temporary name beside it"))
    }

    /// Nil once every byte is written, else the errno.
    private static func writeAll(_ bytes: Data, to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { buffer -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let count = Glibc.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += count
            }
            return nil
        }
    }

    private static func describe(_ code: Int32) -> String {
        NSError(domain: NSPOSIXErrorDomain, code: Int(code)).localizedDescription
    }
}
