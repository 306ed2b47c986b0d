import Foundation

/// The targets of `Package.swift` and what their sources import, read as text: each `.target(`, `.executableTarget(`,
/// `.testTarget(` and `.systemLibrary(` call with its `name`, `dependencies` and `path`. Enough for this package's
/// manifest, which names every dependency as a string; anything else it cannot read fails the tests.
struct PackageGraph {
    struct Target {
        enum Kind: String {
            case library = "target", executable = "executableTarget", test = "testTarget", system = "systemLibrary"
        }

        var name: String
        var kind: Kind
        var dependencies: [String]
        /// Relative to the package root.
        var path: String

        /// A module of the product, as opposed to a test or its support.
        var isSource: Bool { path.hasPrefix("Sources/") }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let root: String
    let targets: [Target]

    init(root: String) throws {
        self.root = root
        let text = try String(contentsOfFile: "\(root)/Package.swift", encoding: .utf8)
        var targets: [Target] = []
        let pattern = try NSRegularExpression(pattern: #"\.(target|executableTarget|testTarget|systemLibrary)\("#)
        let whole = NSRange(text.startIndex..., in: text)
        for match in pattern.matches(in: text, range: whole) {
            guard let kindRange = Range(match.range(at: 1), in: text), let kind = Target.Kind(rawValue: String(text[kindRange])),
                let open = Range(match.range, in: text)?.upperBound
            else { continue }
            let call = try Self.balanced(text, from: open, closing: ")")
            guard let name = Self.string(after: "name:", in: call[...]) else { throw Failure(description: "a .\(kind.rawValue)( in Package.swift has no name") }
            var dependencies: [String] = []
            if let list = call.range(of: "dependencies:") {
                guard let bracket = call[list.upperBound...].firstIndex(of: "[") else { throw Failure(description: "\(name)'s dependencies are not a list") }
                dependencies = Self.strings(in: try Self.balanced(call, from: call.index(after: bracket), closing: "]")[...])
            }
            let path = Self.string(after: "path:", in: call[...]) ?? (kind == .test ? "Tests/\(name)" : "Sources/\(name)")
            targets.append(Target(name: name, kind: kind, dependencies: dependencies, path: path))
        }
        guard !targets.isEmpty else { throw Failure(description: "no targets found in Package.swift") }
        self.targets = targets
    }

    var names: Set<String> { Set(targets.map(\.name)) }

    /// The Swift files of a target, with their paths relative to the package root.
    func sourceFiles(of target: Target) throws -> [(path: String, relative: String)] {
        let folder = "\(root)/\(target.path)"
        guard let walker = FileManager.default.enumerator(atPath: folder) else { throw Failure(description: "cannot read \(target.path)") }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { ("\(folder)/\($0)", "\(target.path)/\($0)") }
    }

    /// The package's modules the target's files import.
    func importedModules(of target: Target) throws -> Set<String> {
        var modules = Set<String>()
        for file in try sourceFiles(of: target) { modules.formUnion(try Self.imports(in: file.path)) }
        return modules.intersection(names).subtracting([target.name])
    }

    /// The modules a file imports: `import X`, `public import X`, `@testable import X`, `import struct X.Y`.
    static func imports(in path: String) throws -> [String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let pattern = try NSRegularExpression(
            pattern: #"^\s*(?:@testable\s+)?(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(?:(?:struct|class|enum|protocol|typealias|func|let|var)\s+)?([A-Za-z_][A-Za-z0-9_]*)"#,
            options: [.anchorsMatchLines]
        )
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    /// The arrows between the product's modules (tests and their support left out) that no longer path implies,
    /// sorted as docs/architecture.md lists them: by the layer order of the drawing, then by name.
    func reducedEdges() -> [(from: String, to: String)] {
        let product = targets.filter { $0.isSource }
        let names = Set(product.map(\.name))
        let direct = Dictionary(uniqueKeysWithValues: product.map { ($0.name, Set($0.dependencies).intersection(names)) })
        func reachable(from start: String) -> Set<String> {
            var seen = Set<String>()
            var pending = Array(direct[start] ?? [])
            while let next = pending.popLast() {
                guard seen.insert(next).inserted else { continue }
                pending += direct[next] ?? []
            }
            return seen
        }
        var edges: [(from: String, to: String)] = []
        for (from, dependencies) in direct {
            for to in dependencies where !dependencies.subtracting([to]).contains(where: { reachable(from: $0).contains(to) }) {
                edges.append((from, to))
            }
        }
        // Modules few others depend on first, so the drawing reads from the command line down to the vocabulary.
        let dependents = Dictionary(uniqueKeysWithValues: names.map { name in (name, names.filter { reachable(from: $0).contains(name) }.count) })
        return edges.sorted { (dependents[$0.from] ?? 0, $0.from, $0.to) < (dependents[$1.from] ?? 0, $1.from, $1.to) }
    }

    /// The text from `start` up to the `closing` bracket that balances it, skipping string literals.
    static func balanced(_ text: String, from start: String.Index, closing: Character) throws -> String {
        let opening: Character = closing == ")" ? "(" : "["
        var depth = 1
        var inString = false
        var index = start
        while index < text.endIndex {
            let character = text[index]
            if inString {
                if character == "\\" { index = text.index(after: index) } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == opening {
                depth += 1
            } else if character == closing {
                depth -= 1
                if depth == 0 { return String(text[start..<index]) }
            }
            index = text.index(after: index)
        }
        throw Failure(description: "an unbalanced \(opening) in Package.swift")
    }

    /// The first string literal after `label`.
    static func string(after label: String, in text: Substring) -> String? {
        guard let found = text.range(of: label) else { return nil }
        return strings(in: text[found.upperBound...]).first
    }

    /// Every string literal in `text`, in order.
    static func strings(in text: Substring) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }
}
