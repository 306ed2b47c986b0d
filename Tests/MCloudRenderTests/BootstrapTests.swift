import MCloudCore
@testable import MCloudRender
import Testing

/// The Argo CD and Flux objects of a rendering: one per cluster folder, each cluster named as the catalog says, and
/// the repository given. The shapes themselves are held to the upstream CRDs on the test bed
/// (MCloudKubernetesTests/BootstrapDryRunTests) and to Golden/<example>/bootstrap/.
@Suite struct BootstrapTests {
    static func shop(_ edit: (inout [Cloud]) -> Void = { _ in }) throws -> (Bootstrap, RenderedTree) {
        var model = try RenderFixtures.shop()
        edit(&model.clouds)
        let rendering = Rendering(model: model, placement: RenderFixtures.shopPlacement)
        let bootstrap = Bootstrap(model: model, rendering: rendering, source: RenderFixtures.source)
        return (bootstrap, rendering.tree(with: bootstrap))
    }

    @Test func eachClusterIsNamedForArgoCDAndFluxAsTheCatalogSays() throws {
        let (bootstrap, _) = try Self.shop { clouds in
            clouds[0].endpoints.kubernetesServer = "https://10.0.0.1:6443"
            clouds[1].endpoints.argocdCluster = "prod-c2"
            clouds[1].endpoints.fluxKubeConfigSecret = "c2-admin"
            clouds[1].endpoints.fluxKubeConfigKey = "value.yaml"
        }
        #expect(bootstrap.clusters.map(\.cloud) == ["c1", "c2", "c3"])
        #expect(bootstrap.clusters.map(\.argocd) == [.server("https://10.0.0.1:6443"), .name("prod-c2"), .name("c3")])
        #expect(bootstrap.clusters.map(\.flux) == [
            .init(secret: "c1-kubeconfig", key: nil), .init(secret: "c2-admin", key: "value.yaml"), .init(secret: "c3-kubeconfig", key: nil),
        ])
        let set = bootstrap.applicationSet
        let elements = set.at("spec", "generators")?.items.first?.at("list", "elements")?.items ?? []
        // Mixed: both keys in every element, the unused one empty, which Argo CD takes as unset.
        #expect(elements.map { $0["destinationServer"]?.stringValue } == ["https://10.0.0.1:6443", "", ""])
        #expect(elements.map { $0["destinationName"]?.stringValue } == ["", "prod-c2", "c3"])
        #expect(set.at("spec", "template", "spec", "destination")?.yaml == "name: \"{{.destinationName}}\"\nserver: \"{{.destinationServer}}\"\n")
        let kustomization = bootstrap.kustomization(bootstrap.clusters[1])
        #expect(kustomization.at("spec", "kubeConfig")?.yaml == "secretRef:\n  name: c2-admin\n  key: value.yaml\n")
        #expect(kustomization.at("spec", "path")?.stringValue == "./clusters/c2")
        #expect(kustomization.at("spec", "prune")?.yaml == "true\n")
    }

    @Test func aCatalogThatNamesEveryClusterAlikeGetsOneDestinationKey() throws {
        let (bootstrap, _) = try Self.shop()
        let set = bootstrap.applicationSet
        #expect(set.at("spec", "template", "spec", "destination")?.yaml == "name: \"{{.destinationName}}\"\n")
        let elements = set.at("spec", "generators")?.items.first?.at("list", "elements")?.items ?? []
        #expect(elements.allSatisfy { $0["destinationServer"] == nil })
    }

    @Test func theRepositoryBranchAndSecretAreTheOnesGiven() throws {
        let model = try RenderFixtures.shop()
        let rendering = Rendering(model: model, placement: RenderFixtures.shopPlacement)
        let source = Bootstrap.Source(url: "ssh://git@git.example/shop/deploy.git", branch: "release/7", fluxSecret: "shop-git")
        let bootstrap = Bootstrap(model: model, rendering: rendering, source: source)
        #expect(bootstrap.gitRepository.at("spec")?.yaml == """
            interval: "1m0s"
            url: ssh://git@git.example/shop/deploy.git
            ref:
              branch: release/7
            secretRef:
              name: shop-git
            ignore: "/*\\n!/clusters/\\n"

            """)
        #expect(bootstrap.applicationSet.at("spec", "template", "spec", "source")?.yaml == """
            repoURL: ssh://git@git.example/shop/deploy.git
            targetRevision: release/7
            path: "{{.path}}"

            """)
    }

    /// Every path the objects name is a cluster folder of the tree, and every folder has both.
    @Test(arguments: RenderFixtures.examples)
    func everyPathTheObjectsNameIsAClusterFolderOfTheTree(_ name: String) throws {
        let (model, plan) = try RenderFixtures.example(name)
        let rendering = Rendering(model: model, placement: Placement(plan))
        let bootstrap = Bootstrap(model: model, rendering: rendering, source: RenderFixtures.source)
        let tree = rendering.tree(with: bootstrap)
        let folders = tree.files.map(\.path).filter { $0.hasPrefix("clusters/") && $0.hasSuffix("/kustomization.yaml") }
            .map { String($0.dropLast("/kustomization.yaml".count)) }
        let elements = bootstrap.applicationSet.at("spec", "generators")?.items.first?.at("list", "elements")?.items ?? []
        #expect(elements.compactMap { $0["path"]?.stringValue } == folders)
        #expect(bootstrap.clusters.map { bootstrap.kustomization($0).at("spec", "path")?.stringValue ?? "" } == folders.map { "./" + $0 })
        #expect(tree.files.filter { $0.path.hasPrefix("bootstrap/flux/") && $0.path.hasSuffix(".kustomization.yaml") }.count == folders.count)
    }

    @Test func longNamesStayWithinSixtyThreeCharactersAndApart() throws {
        let application = String(repeating: "a", count: 40)
        let bootstrap = Bootstrap(application: application, source: RenderFixtures.source, clusters: [
            .init(cloud: String(repeating: "c", count: 30) + "-one", endpoints: .init()),
            .init(cloud: String(repeating: "c", count: 30) + "-two", endpoints: .init()),
        ])
        let names = bootstrap.clusters.map { bootstrap.applicationName($0.cloud) }
        #expect(names.allSatisfy { $0.utf8.count <= 63 })
        #expect(Set(names).count == 2)
        #expect(names == bootstrap.clusters.map { bootstrap.kustomizationName($0.cloud) })
    }

    struct URLCase: Sendable, CustomTestStringConvertible {
        var url: String
        var problem: String?
        var testDescription: String { url }
    }

    @Test(arguments: [
        URLCase(url: "https://git.example/a.git", problem: nil),
        URLCase(url: "ssh://git@git.example:22/a.git", problem: nil),
        URLCase(url: "http://10.0.0.1/a", problem: nil),
        URLCase(url: "git@github.com:org/repo.git", problem: "\"git@github.com:org/repo.git\" is an scp-style address, which Flux cannot read; write it as ssh://git@github.com/org/repo.git"),
        URLCase(url: "ftp://x/a", problem: "\"ftp://x/a\" is not an https://, http:// or ssh:// URL"),
        URLCase(url: "https://", problem: "\"https://\" is not an https://, http:// or ssh:// URL"),
        URLCase(url: "https://a b", problem: "\"https://a b\" is not a repository URL"),
    ])
    func repositoryURLsBothToolsRead(_ example: URLCase) {
        #expect(Bootstrap.Source.urlProblem(example.url) == example.problem)
    }

    @Test(arguments: [("main", true), ("release/2026.1", true), ("a..b", false), ("-x", false), ("x.lock", false), ("a b", false), ("", false), ("x/", false)])
    func branchNamesGitAccepts(_ branch: String, _ valid: Bool) {
        #expect((Bootstrap.Source.branchProblem(branch) == nil) == valid)
    }
}
