import Foundation
import MCloudManifest
import Testing
import MCloudCore

@Suite struct BaseFixtureTests {
    @Test func baseFixtureIsValid() throws {
        let directory = try #require(Bundle.module.path(forResource: "Fixtures/base", ofType: nil))
        let set = ManifestLoader.load(paths: [directory], providers: nil)
        #expect(set.diagnostics.isEmpty, "\(set.diagnostics)")
        #expect(set.model?.cells.map(\.name) == ["accounts-db@eu", "accounts-db@ru", "payments-api@eu", "payments-api@ru"])
    }
}
