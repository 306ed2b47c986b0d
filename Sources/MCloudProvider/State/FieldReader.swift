package import MCloudCore

/// Reads the fields of one JSON object strictly, so every malformed field of a state or lock file is reported
/// with its path (`resources[2].provider: expected a string, found a number`).
package struct FieldReader {
    package struct Failure: Error, Sendable, Equatable {
        package var message: String

        package init(message: String) {
            self.message = message
        }
    }

    /// Where the object sits in the document, such as `resources[2]`; empty at the top level.
    package let path: String
    package let pairs: [(String, JSONValue)]

    /// Parses a whole document, which must be one JSON object.
    package static func document(_ bytes: [UInt8]) throws(Failure) -> FieldReader {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw Failure(message: "not JSON (\(error.description))")
        }
        return try FieldReader(value, path: "")
    }

    package init(_ value: JSONValue, path: String) throws(Failure) {
        guard case .object(let pairs) = value else {
            throw Failure(message: "\(path.isEmpty ? "the document" : path): expected an object, found \(Self.kind(of: value))")
        }
        self.path = path
        self.pairs = pairs
    }

    /// Refuses fields not in `names` and fields given twice: the format is versioned, so an unknown field is damage.
    package func allowOnly(_ names: Set<String>) throws(Failure) {
        var seen: Set<String> = []
        for (name, _) in pairs {
            guard names.contains(name) else { throw failure(name, "unknown field") }
            guard seen.insert(name).inserted else { throw failure(name, "given twice") }
        }
    }

    package func value(_ name: String) throws(Failure) -> JSONValue {
        guard let value = pairs.first(where: { $0.0 == name })?.1 else { throw failure(name, "missing") }
        return value
    }

    /// A non-empty string.
    package func string(_ name: String) throws(Failure) -> String {
        let value = try value(name)
        guard case .string(let text) = value else { throw failure(name, "expected a string, found \(Self.kind(of: value))") }
        guard !text.isEmpty else { throw failure(name, "must not be empty") }
        return text
    }

    package func int(_ name: String) throws(Failure) -> Int {
        let value = try value(name)
        guard case .int(let number) = value else { throw failure(name, "expected an integer, found \(Self.kind(of: value))") }
        return number
    }

    /// A finite number, integer or not.
    package func number(_ name: String) throws(Failure) -> Double {
        let value = try value(name)
        guard let number = value.doubleValue, number.isFinite else { throw failure(name, "expected a number, found \(Self.kind(of: value))") }
        return number
    }

    package func has(_ name: String) -> Bool {
        pairs.contains { $0.0 == name }
    }

    package func array(_ name: String) throws(Failure) -> [JSONValue] {
        let value = try value(name)
        guard case .array(let items) = value else { throw failure(name, "expected an array, found \(Self.kind(of: value))") }
        return items
    }

    package func object(_ name: String) throws(Failure) -> [(String, JSONValue)] {
        let value = try value(name)
        guard case .object(let pairs) = value else { throw failure(name, "expected an object, found \(Self.kind(of: value))") }
        return pairs
    }

    package func fieldPath(_ name: String) -> String {
        path.isEmpty ? name : path + "." + name
    }

    package func failure(_ name: String, _ message: String) -> Failure {
        Failure(message: "\(fieldPath(name)): \(message)")
    }

    package static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
