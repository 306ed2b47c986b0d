import MCloudManifest
import Testing
import MCloudCore

/// One of the applications under `Manifests/` and the cells it must expand to.
struct ExampleApplication: Sendable, CustomTestStringConvertible {
    var name: String
    var cells: [String]
    var testDescription: String { name }
}

@Suite struct ExampleManifestTests {
    static let examples = [
        ExampleApplication(name: "retail-bank", cells: [
            "accounts-db@eu", "accounts-db@ru", "accounts@eu", "accounts@ru",
            "cards-db@eu", "cards-db@ru", "cards@eu", "cards@ru",
            "core-gateway@eu", "core-gateway@ru", "fraud-scoring@eu", "fraud-scoring@ru",
            "fx-cache", "fx-rates",
            "notifications@eu", "notifications@ru",
            "payments-api@eu", "payments-api@ru", "payments-db@eu", "payments-db@ru",
            "sessions-redis@eu", "sessions-redis@ru", "web@eu", "web@ru",
        ]),
        ExampleApplication(name: "shop", cells: [
            "cart", "catalog", "checkout", "search", "shop-cache", "shop-db", "storefront",
        ]),
        ExampleApplication(name: "telemed", cells: [
            "analytics", "analytics-ingest", "api-gateway@kz", "api-gateway@ru",
            "consultations@kz", "consultations@ru", "ehr-db@kz", "ehr-db@ru",
            "notifications@kz", "notifications@ru", "patient-web@kz", "patient-web@ru",
            "prescriptions@kz", "prescriptions@ru", "scheduling-db@kz", "scheduling-db@ru",
            "scheduling@kz", "scheduling@ru", "terminology", "video-signaling@kz", "video-signaling@ru",
        ]),
    ]

    @Test(arguments: examples)
    func validatesWithTheCatalogWithoutErrorsOrWarnings(_ example: ExampleApplication) throws {
        let set = ManifestLoader.load(paths: [Repository.manifests + "/" + example.name], providers: Repository.providers)
        #expect(set.diagnostics.map(\.description) == [])
        let model = try #require(set.model)
        #expect(model.application.name == example.name)
        #expect(model.cells.map(\.name) == example.cells)
    }

    @Test func everyExampleDirectoryIsCovered() {
        #expect(Repository.subdirectories(of: Repository.manifests) == Self.examples.map(\.name))
    }
}
