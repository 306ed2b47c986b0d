/// One problem found in the user's input, with the place it was found.
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
    public enum Severity: String, Sendable, Comparable {
        case error
        case warning

        public static func < (lhs: Severity, rhs: Severity) -> Bool {
            lhs == .error && rhs == .warning
        }
    }

    public var severity: Severity
    /// The file (or directory) the problem is in, when it has no line and column.
    public var file: String?
    public var location: SourceLocation?
    public var message: String

    public init(_ severity: Severity, at location: SourceLocation, _ message: String) {
        self.severity = severity
        self.file = location.file
        self.location = location
        self.message = message
    }

    /// A problem with a whole file or directory, or with the input as a whole when `file` is nil.
    public init(_ severity: Severity, file: String?, _ message: String) {
        self.severity = severity
        self.file = file
        self.location = nil
        self.message = message
    }

    public static func error(_ location: SourceLocation, _ message: String) -> Diagnostic {
        Diagnostic(.error, at: location, message)
    }

    public static func warning(_ location: SourceLocation, _ message: String) -> Diagnostic {
        Diagnostic(.warning, at: location, message)
    }

    /// `FILE:LINE:COL: error: message`, as compilers print it.
    public var description: String {
        if let location { return "\(location): \(severity.rawValue): \(message)" }
        if let file { return "\(file): \(severity.rawValue): \(message)" }
        return "\(severity.rawValue): \(message)"
    }
}

extension Diagnostic: Comparable {
    /// By file and position, errors before warnings at one place; problems of the input as a whole come last.
    public static func < (lhs: Diagnostic, rhs: Diagnostic) -> Bool {
        let left = (lhs.file == nil ? 1 : 0, lhs.file ?? "", lhs.location?.line ?? 0, lhs.location?.column ?? 0)
        let right = (rhs.file == nil ? 1 : 0, rhs.file ?? "", rhs.location?.line ?? 0, rhs.location?.column ?? 0)
        if left != right { return left < right }
        if lhs.severity != rhs.severity { return lhs.severity < rhs.severity }
        return lhs.message < rhs.message
    }
}

extension Array where Element == Diagnostic {
    public var hasErrors: Bool { contains { $0.severity == .error } }
    public var errorCount: Int { filter { $0.severity == .error }.count }
    public var warningCount: Int { filter { $0.severity == .warning }.count }
}
