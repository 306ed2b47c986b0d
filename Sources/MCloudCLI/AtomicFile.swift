import Foundation

/// Writes a file whole or not at all: a temporary file beside it, renamed over it (rename(2) replaces the old one in
/// one step), so a reader never sees half of it and a failure leaves the old one as it was.
enum AtomicFile {
    /// False after printing why `what` could not be written.
    static func write(_ bytes: Data, to path: String, what: String, _ context: CommandContext) -> Bool {
        let temporary = path + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
        do {
            try bytes.write(to: URL(fileURLWithPath: temporary))
        } catch {
            context.stderr.write("error: cannot write \(what) to \(path): \(error.localizedDescription)\n")
            return false
        }
        // Not FileManager.replaceItemAt: on Linux it fails over an existing file and leaves neither file behind.
        guard rename(temporary, path) == 0 else {
            let reason = NSError(domain: NSPOSIXErrorDomain, code: Int(errno)).localizedDescription
            try? FileManager.default.removeItem(atPath: temporary)
            context.stderr.write("error: cannot write \(what) to \(path): \(reason)\n")
            return false
        }
        return true
    }
}
