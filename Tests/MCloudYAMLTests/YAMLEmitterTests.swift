import Foundation
import MCloudYAML
import Testing

@Suite struct YAMLEmitterTests {
    struct Quoting: Sendable, CustomTestStringConvertible {
        var value: String
        var emitted: String
        var testDescription: String { value.isEmpty ? "(empty)" : value }
    }

    @Test(arguments: [
        Quoting(value: "payments-api", emitted: "payments-api"),
        Quoting(value: "registry.example/app:2.3.1", emitted: "registry.example/app:2.3.1"),
        Quoting(value: "15", emitted: "\"15\""),
        Quoting(value: "1.5", emitted: "\"1.5\""),
        Quoting(value: "yes", emitted: "\"yes\""),
        Quoting(value: "On", emitted: "\"On\""),
        Quoting(value: "n", emitted: "\"n\""),
        Quoting(value: "true", emitted: "\"true\""),
        Quoting(value: "null", emitted: "\"null\""),
        Quoting(value: "~", emitted: "\"~\""),
        Quoting(value: "", emitted: "\"\""),
        Quoting(value: "0x1F", emitted: "\"0x1F\""),
        Quoting(value: ".5", emitted: "\".5\""),
        Quoting(value: "-1", emitted: "\"-1\""),
        Quoting(value: "*", emitted: "\"*\""),
        Quoting(value: "/static/*", emitted: "/static/*"),
        Quoting(value: "a: b", emitted: "\"a: b\""),
        Quoting(value: "a #b", emitted: "\"a #b\""),
        Quoting(value: " padded", emitted: "\" padded\""),
        Quoting(value: "0 */6 * * *", emitted: "\"0 */6 * * *\""),
        Quoting(value: "tab\there", emitted: "\"tab\\there\""),
    ])
    func stringsAreQuotedOnlyWhereAReaderCouldTakeThemForAnotherType(_ case: Quoting) throws {
        let text = try YAMLEmitter.emit(.map(["v": .string(`case`.value)]))
        #expect(text == "v: \(`case`.emitted)\n")
        let reread = try #require(YAMLReader.read(text, file: "t").documents.first?.root)
        #expect(reread["v"]?.scalar?.resolved == .string(`case`.value))
    }

    @Test func objectsKeepTheirKeyOrderAndNestInBlockStyle() throws {
        let deployment = YAMLNode.map([
            "apiVersion": .string("apps/v1"),
            "kind": .string("Deployment"),
            "metadata": .map(["name": .string("web"), "labels": .map(["app.kubernetes.io/name": .string("web")])]),
            "spec": .map([
                "replicas": .int(3),
                "paused": .bool(false),
                "ports": .list([.map(["name": .string("http"), "containerPort": .int(8080)])]),
                "args": .list([]),
                "script": .string("line one\nline two\n"),
            ]),
        ])
        let text = try YAMLEmitter.emit([deployment, .map(["kind": .string("Service")])])
        #expect(text == """
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: web
              labels:
                app.kubernetes.io/name: web
            spec:
              replicas: 3
              paused: false
              ports:
              - name: http
                containerPort: 8080
              args: []
              script: |
                line one
                line two
            ---
            kind: Service

            """)
    }

    /// Every bundled manifest survives read, emit, read with the same values, and emitting again gives the same bytes.
    @Test func bundledManifestsRoundTrip() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let files = ["Manifests", "Providers"].flatMap { folder -> [URL] in
            let enumerator = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            return (enumerator?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "yaml" }
        }
        #expect(files.count >= 10)
        for file in files {
            let original = YAMLReader.read(Array(try Data(contentsOf: file)), file: file.path)
            #expect(original.diagnostics.isEmpty)
            let roots = original.documents.compactMap(\.root)
            let emitted = try YAMLEmitter.emit(roots)
            let reread = YAMLReader.read(emitted, file: "emitted").documents.compactMap(\.root)
            #expect(reread.map(Value.init) == roots.map(Value.init), "\(file.lastPathComponent)")
            #expect(try YAMLEmitter.emit(reread) == emitted)
        }
    }
}

/// A node's meaning without its positions or quoting, for comparing trees.
indirect enum Value: Equatable {
    case scalar(ResolvedScalar)
    case list([Value])
    case map([String: Value])

    init(_ node: YAMLNode) {
        switch node.content {
        case .scalar(let scalar): self = .scalar(scalar.resolved)
        case .sequence(let items): self = .list(items.map(Value.init))
        case .mapping(let pairs):
            self = .map(Dictionary(pairs.map { ($0.key.scalar?.value ?? "?", Value($0.value)) }, uniquingKeysWith: { first, _ in first }))
        }
    }
}
