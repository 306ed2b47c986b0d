import Foundation
import MCloudCore
import MCloudKubernetes
import MCloudManifest
import MCloudPlanner
import MCloudRender
import Testing

/// The bootstrap objects `render` writes for Argo CD and Flux, sent to the real API server of the test bed as a
/// server-side apply dry run once the CRDs of Application, ApplicationSet, GitRepository and Kustomization (the
/// structural subsets under Fixtures/crds, transcribed from the upstream CRDs) are installed. The server validates
/// them as Argo CD's and Flux's own CRDs would and prunes what those schemas do not declare, so each answer must
/// keep every field mcloud wrote; and each path the objects name must be a cluster folder of the rendered tree.
@Suite(.serialized) struct BootstrapDryRunTests {
    static let root = String(#filePath.split(separator: "/Tests/")[0])
    static let source = Bootstrap.Source(url: "https://git.example/platform/deploy.git", branch: "release/2026", fluxSecret: "deploy-git-auth")

    /// The four CRDs, Established, and the two namespaces the objects live in; applying them again is a no-op.
    static func preparedClient() async throws -> KubernetesClient {
        let setup = try TestBed.load().client("admin-cert")
        var names: [String] = []
        for file in ["argocd-application", "argocd-applicationset", "flux-gitrepository", "flux-kustomization"] {
            let bytes = try #require(FileManager.default.contents(atPath: fixture("crds/\(file).yaml")))
            for crd in try ManifestDocuments.objects(Array(bytes), file: file) {
                _ = try await setup.apply(crd)
                names.append(try #require(crd.value(at: ["metadata", "name"])?.stringValue))
            }
        }
        for name in names {
            let reference = ObjectReference(apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", namespace: "", name: name)
            var established = false
            for _ in 0..<100 where !established {
                let conditions = try await setup.get(reference)?.value(at: ["status", "conditions"])?.arrayItems ?? []
                established = conditions.contains { $0["type"]?.stringValue == "Established" && $0["status"]?.stringValue == "True" }
                if !established { try await Task.sleep(for: .milliseconds(100)) }
            }
            try #require(established, "CRD \(name) did not become Established")
        }
        for namespace in [Bootstrap.argocdNamespace, Bootstrap.fluxNamespace] {
            _ = try await setup.apply(.object([("apiVersion", .string("v1")), ("kind", .string("Namespace")), ("metadata", .object([("name", .string(namespace))]))]))
        }
        // Discovery is cached per client: a new one sees the new kinds.
        return try TestBed.load().client("admin-cert")
    }

    /// The example as rendered with the bundled catalog; the retail bank's catalog names two of its clusters the
    /// other ways (an API server for Argo CD; a registered name, a Secret and a key for Flux), so both shapes of
    /// destination and kubeconfig reference meet the server.
    static func rendered(_ example: String) throws -> (tree: RenderedTree, bootstrap: Bootstrap) {
        var model = try #require(ManifestLoader.load(paths: ["\(root)/Manifests/\(example)"], providers: "\(root)/Providers").model)
        if example == "retail-bank" {
            for index in model.clouds.indices where model.clouds[index].name == "sel-msk" {
                model.clouds[index].endpoints.kubernetesServer = "https://192.0.2.17:6443"
            }
            for index in model.clouds.indices where model.clouds[index].name == "aws-irl" {
                model.clouds[index].endpoints.argocdCluster = "aws-irl-prod"
                model.clouds[index].endpoints.fluxKubeConfigSecret = "aws-irl-prod-kubeconfig"
                model.clouds[index].endpoints.fluxKubeConfigKey = "value.yaml"
            }
        }
        let plan = try Planner.plan(model, options: Planner.Options(explanations: .none)).get()
        let rendering = Rendering(model: model, placement: Placement(plan))
        let bootstrap = Bootstrap(model: model, rendering: rendering, source: source)
        return (rendering.tree(with: bootstrap), bootstrap)
    }

    @Test(arguments: ["retail-bank", "shop", "telemed"])
    func everyBootstrapObjectPassesAServerSideDryRunAndKeepsEveryFieldWritten(_ example: String) async throws {
        let client = try await Self.preparedClient()
        let (tree, bootstrap) = try Self.rendered(example)
        var objects: [JSONValue] = []
        for file in tree.files where file.path.hasPrefix("bootstrap/") {
            objects += try ManifestDocuments.objects(Array(file.contents.utf8), file: file.path)
        }
        #expect(objects.map { $0["kind"]?.stringValue ?? "" }.sorted()
            == ["ApplicationSet", "GitRepository"] + Array(repeating: "Kustomization", count: bootstrap.clusters.count))
        // What the ApplicationSet's list generator makes: an Application per cluster, checked by the Application CRD.
        let applicationSet = try #require(objects.first { $0["kind"]?.stringValue == "ApplicationSet" })
        let applications = try Self.generatedApplications(applicationSet)
        #expect(applications.count == bootstrap.clusters.count)
        if example == "retail-bank" {
            let destinations = applications.compactMap { $0.value(at: ["spec", "destination"])?.serialized(pretty: false) }
            #expect(destinations.contains(#"{"server":"https://192.0.2.17:6443"}"#) && destinations.contains(#"{"name":"aws-irl-prod"}"#), "\(destinations)")
        }
        for object in objects + applications {
            let answer = try await client.apply(object, dryRun: true)
            let name = "\(object["kind"]?.stringValue ?? "") \(object.value(at: ["metadata", "name"])?.stringValue ?? "")"
            #expect(Self.missing(object, in: answer).isEmpty, "\(name): the server pruned \(Self.missing(object, in: answer))")
            #expect(answer.value(at: ["metadata", "uid"]) != nil, "\(name): not answered as an object")
        }
        // A dry run stores nothing.
        let reference = ObjectReference(apiVersion: "argoproj.io/v1alpha1", kind: "ApplicationSet", namespace: Bootstrap.argocdNamespace, name: bootstrap.application)
        #expect(try await client.get(reference) == nil)

        let folders = Set(tree.files.filter { $0.path.hasPrefix("clusters/") && $0.path.hasSuffix("/kustomization.yaml") }
            .map { String($0.path.dropLast("/kustomization.yaml".count)) })
        let paths = applications.compactMap { $0.value(at: ["spec", "source", "path"])?.stringValue }
            + objects.filter { $0["kind"]?.stringValue == "Kustomization" }.compactMap { $0.value(at: ["spec", "path"])?.stringValue.map { String($0.dropFirst(2)) } }
        #expect(Set(paths) == folders, "the objects' paths differ from the tree's cluster folders")
        #expect(paths.count == 2 * folders.count)
    }

    /// A field the schema does not declare is pruned silently (201) inside a declared object, so the test has to
    /// look: one the schemas lack must come back missing, or the check above could not fail. Directly under spec the
    /// server refuses it instead (500), so neither way does a misspelt field pass unseen.
    @Test func aFieldTheSchemaLacksIsPrunedAndReportedMissingOrRefused() async throws {
        let client = try await Self.preparedClient()
        let (tree, _) = try Self.rendered("shop")
        let file = try #require(tree.files.first { $0.path.hasSuffix(".applicationset.yaml") })
        let set = try #require(try ManifestDocuments.objects(Array(file.contents.utf8), file: file.path).first)
        let application = Self.setting(try #require(try Self.generatedApplications(set).first), ["spec", "source", "helm", "releaseName"], .string("web"))
        let answer = try await client.apply(application, dryRun: true)
        #expect(Self.missing(application, in: answer) == ["spec.source.helm.releaseName"])

        let repository = try #require(tree.files.first { $0.path.hasSuffix(".gitrepository.yaml") })
        let object = Self.setting(try #require(try ManifestDocuments.objects(Array(repository.contents.utf8), file: repository.path).first), ["spec", "recurseSubmodulez"], .bool(true))
        await #expect {
            _ = try await client.apply(object, dryRun: true)
        } throws: { "\($0)".contains(".spec.recurseSubmodulez: field not declared in schema") }
    }

    /// Every leaf of `sent` that `answer` lacks or holds another value for, by path.
    static func missing(_ sent: JSONValue, in answer: JSONValue?, path: String = "") -> [String] {
        switch sent {
        case .object(let pairs):
            return pairs.flatMap { key, value in missing(value, in: answer?[key], path: path.isEmpty ? key : "\(path).\(key)") }
        case .array(let items):
            let answered = answer?.arrayItems ?? []
            guard answered.count == items.count else { return [path] }
            return items.indices.flatMap { missing(items[$0], in: answered[$0], path: "\(path)[\($0)]") }
        default:
            return answer == sent ? [] : [path]
        }
    }

    static func setting(_ object: JSONValue, _ path: [String], _ value: JSONValue) -> JSONValue {
        guard let key = path.first else { return value }
        var pairs = object.objectPairs
        if let index = pairs.firstIndex(where: { $0.0 == key }) {
            pairs[index].1 = setting(pairs[index].1, Array(path.dropFirst()), value)
        } else {
            pairs.append((key, setting(.object([]), Array(path.dropFirst()), value)))
        }
        return .object(pairs)
    }

    /// The Applications the ApplicationSet controller makes from the list generator: each element's values put
    /// into the template's `{{.key}}` places (Go templates, `missingkey=error`: an unknown key fails).
    static func generatedApplications(_ applicationSet: JSONValue) throws -> [JSONValue] {
        let template = try #require(applicationSet.value(at: ["spec", "template"]))
        let elements = applicationSet.value(at: ["spec", "generators"])?.arrayItems.first?.value(at: ["list", "elements"])?.arrayItems ?? []
        return try elements.map { element in
            let values = Dictionary(element.objectPairs.compactMap { key, value in value.stringValue.map { (key, $0) } }, uniquingKeysWith: { first, _ in first })
            func fill(_ node: JSONValue) throws -> JSONValue {
                switch node {
                case .string(var text):
                    while let open = text.range(of: "{{."), let close = text.range(of: "}}", range: open.upperBound..<text.endIndex) {
                        let key = String(text[open.upperBound..<close.lowerBound])
                        text.replaceSubrange(open.lowerBound..<close.upperBound, with: try #require(values[key], "no element key \(key)"))
                    }
                    return .string(text)
                case .object(let pairs): return .object(try pairs.map { ($0.0, try fill($0.1)) })
                case .array(let items): return .array(try items.map(fill))
                default: return node
                }
            }
            let metadata = try fill(template["metadata"] ?? .object([])).objectPairs + [("namespace", .string(Bootstrap.argocdNamespace))]
            var spec = try fill(template["spec"] ?? .object([]))
            // The controller decodes the result into its Go types, whose destination server and name are
            // `omitempty` (pkg/apis/application/v1alpha1/types.go): an empty one is not written.
            let destination = (spec["destination"]?.objectPairs ?? []).filter { $0.1 != .string("") }
            spec = setting(spec, ["destination"], .object(destination))
            return .object([
                ("apiVersion", .string("argoproj.io/v1alpha1")), ("kind", .string("Application")),
                ("metadata", .object(metadata)), ("spec", spec),
            ])
        }
    }
}
