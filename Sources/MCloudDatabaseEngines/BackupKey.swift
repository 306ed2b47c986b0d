/// The layout of a backup's key in a DR bucket, as the backup job writes it: `<server>/<YYYYMMDDTHHMMSSZ>.<ext>.age`,
/// the server a name mcloud gave (lower-case letters, digits, `.` and `-`), the stamp a valid UTC time, the extension a
/// dump's (`sql.gz`, `rdb`) and `.age` for an encrypted one (`DumpEncryption`; older plain dumps have none). Anyone who can write to the bucket can add keys, and a recovery point's key goes into a
/// new server's user data, so a key is used only when it has exactly this form.
public enum BackupKey {
    /// Whether `key` is a backup of some server in this layout.
    public static func isWellFormed(_ key: String) -> Bool {
        let parts = key.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, isServerName(parts[0]) else { return false }
        let name = parts[1]
        guard name.count > 17, let dot = name.firstIndex(of: "."), name.distance(from: name.startIndex, to: dot) == 16 else { return false }
        let stamp = name[..<dot]
        let digits = stamp.enumerated().allSatisfy { index, character in
            switch index {
            case 8: character == "T"
            case 15: character == "Z"
            default: character.isASCII && character.isNumber
            }
        }
        guard digits, DatabaseUserData.backupTime(key: key, storedAt: "") != nil else { return false }
        var extensionParts = name[name.index(after: dot)...].split(separator: ".", omittingEmptySubsequences: false)
        if extensionParts.count > 1, extensionParts.last == DumpEncryption.suffix.dropFirst() { extensionParts.removeLast() }
        return (1...2).contains(extensionParts.count) && extensionParts.allSatisfy { part in
            (1...10).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) }
        }
    }

    private static func isServerName(_ name: Substring) -> Bool {
        (1...253).contains(name.count) && name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "." || $0 == "-") }
    }
}
