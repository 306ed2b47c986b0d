import Foundation
import Testing

/// Holds the module graph to what docs/architecture.md draws and its rules: read from `Package.swift`, every `import`
/// line of every target, and the drawing itself. When a change of the graph is intended, the failure prints the
/// drawing to paste into docs/architecture.md.
@Suite struct ModuleGraphTests {
    /// The layers of docs/architecture.md, and the layers each may import.
    enum Layer: String, CaseIterable {
        case vocabulary, wrapper, cLibrary, secrets, catalog, input, planner, generator, contract, client, provider, stateBackends, rendering, engine, views, policy, commandLine
        case shim, bench

        var mayImport: Set<Layer> {
            switch self {
            case .vocabulary, .cLibrary: return []
            case .wrapper: return [.vocabulary, .cLibrary]
            case .secrets: return [.vocabulary, .wrapper]
            case .catalog: return [.vocabulary, .secrets]
            case .input: return [.vocabulary, .wrapper, .catalog]
            case .planner: return [.vocabulary, .catalog]
            case .generator, .contract: return [.vocabulary]
            case .client: return [.vocabulary, .wrapper, .client]
            case .provider: return [.vocabulary, .wrapper, .contract, .client, .catalog, .secrets]
            case .stateBackends: return [.vocabulary, .contract, .cLibrary]
            case .rendering: return [.vocabulary, .planner, .contract, .catalog, .secrets]
            case .engine: return [.vocabulary, .contract]
            case .views: return [.vocabulary, .planner, .contract, .engine]
            case .policy: return [.vocabulary, .contract, .engine, .views]
            case .commandLine: return Set(Layer.allCases).subtracting([.commandLine, .shim, .bench, .cLibrary])
            case .shim: return [.commandLine]
            case .bench: return Set(Layer.allCases).subtracting([.commandLine, .shim, .bench, .cLibrary])
            }
        }
    }

    /// Every module under Sources/ and its layer; a new module must be given one.
    static let layers: [String: Layer] = [
        "MCloudCore": .vocabulary,
        "MCloudYAML": .wrapper, "MCloudHTTP": .wrapper, "MCloudCrypto": .wrapper, "MCloudCompression": .wrapper,
        "MCloudSecrets": .secrets,
        "CYAML": .cLibrary, "CCurl": .cLibrary, "COpenSSL": .cLibrary, "CPostgres": .cLibrary, "CZlib": .cLibrary,
        "MCloudDatabaseEngines": .catalog,
        "MCloudManifest": .input,
        "MCloudPlanner": .planner,
        "MCloudSynthetic": .generator,
        "MCloudProvider": .contract,
        "MCloudKubernetes": .client, "MCloudOpenStack": .client, "MCloudAWS": .client, "MCloudCDN": .client,
        "MCloudKubernetesProvider": .provider, "MCloudOpenStackProvider": .provider, "MCloudAWSProvider": .provider, "MCloudCDNProvider": .provider,
        "MCloudState": .stateBackends,
        "MCloudRender": .rendering,
        "MCloudEngine": .engine,
        "MCloudViews": .views,
        "MCloudPolicy": .policy,
        "MCloudCLI": .commandLine,
        "mcloud": .shim,
        "mcloud-bench": .bench,
    ]

    /// Each C module and the modules that wrap it (in their `Interop/` folders): OpenSSL's digests serve HTTP signing,
    /// its ciphers and key agreement the secrets.
    static let wrappers: [String: Set<String>] = [
        "CYAML": ["MCloudYAML"], "CCurl": ["MCloudHTTP"], "COpenSSL": ["MCloudHTTP", "MCloudCrypto"], "CPostgres": ["MCloudState"], "CZlib": ["MCloudCompression"],
    ]

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static func package() throws -> PackageGraph {
        try PackageGraph(root: root)
    }

    @Test func everyModuleImportsWhatPackageSwiftDeclaresForIt() throws {
        let package = try Self.package()
        for target in package.targets where target.kind != .system {
            let imported = try package.importedModules(of: target)
            let declared = Set(target.dependencies)
            #expect(imported.subtracting(declared).isEmpty, "\(target.name) imports \(imported.subtracting(declared).sorted()) without declaring it in Package.swift")
            // A test target may declare more (a test bed's helper it does not import by name); a module may not.
            if target.isSource {
                #expect(declared.subtracting(imported).isEmpty, "\(target.name) declares \(declared.subtracting(imported).sorted()) in Package.swift but imports none of it")
            }
        }
    }

    @Test func everyModuleImportsOnlyWhatItsLayerMay() throws {
        let package = try Self.package()
        for target in package.targets where target.isSource {
            guard let layer = Self.layers[target.name] else {
                Issue.record("\(target.name) has no layer: give it one in ModuleGraphTests.layers and docs/architecture.md")
                continue
            }
            for dependency in target.dependencies {
                guard let other = Self.layers[dependency] else { continue }
                #expect(layer.mayImport.contains(other), "\(target.name) (\(layer.rawValue)) must not import \(dependency) (\(other.rawValue))")
            }
        }
    }

    @Test func onlyItsWrapperImportsACLibraryAndOnlyInItsInteropFolder() throws {
        let package = try Self.package()
        for target in package.targets where target.kind != .system {
            for file in try package.sourceFiles(of: target) {
                for module in try PackageGraph.imports(in: file.path) where Self.wrappers[module] != nil {
                    let allowed = Self.wrappers[module] ?? []
                    #expect(allowed.contains(target.name), "\(file.relative) imports \(module), which only \(allowed.sorted().joined(separator: " and ")) may")
                    #expect(file.relative.contains("/Interop/"), "\(file.relative) imports \(module) outside an Interop/ folder")
                }
            }
        }
    }

    /// A client speaks its cloud's API and nothing of mcloud's: the provider reads the resource body and hands the client
    /// typed values, and ownership labels, tags and metadata keys are the provider contract's (`ResourceLabels`) or the
    /// provider's. The Kubernetes client reads `spec` of Kubernetes objects, which are its API's own. (A CDN keeps no tags:
    /// its clients write and read `CDNMarker`'s one line themselves, as they need it to adopt what a lost answer made.)
    @Test func noClientParsesAResourceBodyOrNamesAnOwnershipLabel() throws {
        let package = try Self.package()
        let forbidden: [(pattern: String, why: String)] = [
            ("ResourceBody", "a resource body"), ("infrastructure.mcloud.io", "the infrastructure documents' API version"),
            ("mcloud.io/", "an ownership label"), ("managed-by", "an ownership key"),
        ]
        for target in package.targets where Self.layers[target.name] == .client {
            for file in try package.sourceFiles(of: target) {
                let text = try String(contentsOfFile: file.path, encoding: .utf8)
                for (pattern, why) in forbidden where text.contains(pattern) {
                    Issue.record("\(file.relative) names \(why) (\(pattern)): that is the provider's to read or write")
                }
                if target.name != "MCloudKubernetes", text.contains("[\"spec\"") {
                    Issue.record("\(file.relative) reads a path under spec, which only a resource body has")
                }
            }
        }
    }

    @Test func architectureMdDrawsTheRealGraph() throws {
        let package = try Self.package()
        let expected = package.reducedEdges()
        let text = try String(contentsOfFile: "\(Self.root)/docs/architecture.md", encoding: .utf8)
        let drawn = Self.mermaidEdges(text)
        let arrows = expected.map { "\($0.from) --> \($0.to)" }
        let drawnArrows = drawn.map { "\($0.from) --> \($0.to)" }
        let missing = Set(arrows).subtracting(drawnArrows).sorted(), extra = Set(drawnArrows).subtracting(arrows).sorted()
        if !missing.isEmpty || !extra.isEmpty {
            let block = "```mermaid\ngraph TD\n" + arrows.map { "    " + $0 }.joined(separator: "\n") + "\n```"
            Issue.record("docs/architecture.md lacks \(missing) and draws \(extra), which Package.swift does not have; it should draw:\n\(block)")
        }
        #expect(drawnArrows.count == Set(drawnArrows).count, "docs/architecture.md draws an arrow twice")
    }

    @Test func everyModuleHasAReadmeOfItsContract() throws {
        let package = try Self.package()
        for target in package.targets where target.isSource {
            let path = "\(Self.root)/\(target.path)/README.md"
            #expect(FileManager.default.fileExists(atPath: path), "\(target.path) has no README.md")
        }
    }

    /// The arrows of the first mermaid block.
    static func mermaidEdges(_ markdown: String) -> [(from: String, to: String)] {
        guard let start = markdown.range(of: "```mermaid\n"), let end = markdown.range(of: "```", range: start.upperBound..<markdown.endIndex) else { return [] }
        return markdown[start.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 3, parts[1] == "-->" else { return nil }
            return (String(parts[0]), String(parts[2]))
        }
    }
}
