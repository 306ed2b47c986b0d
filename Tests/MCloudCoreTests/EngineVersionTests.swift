import MCloudCore
import Testing

/// A managed offer's versions cover a manifest's version on the dotted parts both give.
@Suite struct EngineVersionTests {
    @Test("an offered version covers a wanted one when their shared parts are equal", arguments: [
        ("16", "16", true),
        ("16", "16.4", true),
        ("8.0.36", "8.0", true),
        ("7", "7.2", true),
        ("9.6", "9.1", false),
        ("16", "1", false),
        ("1", "16", false),
        ("10.11", "10.1", false),
        ("", "16", false),
    ])
    func covers(offered: String, wanted: String, covered: Bool) {
        #expect(EngineVersion.covers(offered: offered, wanted: wanted) == covered)
    }

    @Test("a release's series is PostgreSQL's major from 10 on, else its first two parts", arguments: [
        ("16.4", "postgresql", "16"),
        ("10.23", "postgresql", "10"),
        ("9.6.24", "postgresql", "9.6"),
        ("8.0.39", "mysql", "8.0"),
        ("10.11.9", "mysql", "10.11"),
        ("7.2.4", "redis", "7.2"),
        ("16", "postgresql", "16"),
        ("7", "mongodb", "7"),
    ])
    func series(version: String, engine: String, series: String) {
        #expect(EngineVersion.series(version, engine: engine) == series)
    }

    @Test func aCloudSellsAnEngineInAnyVersionUnlessItListsThem() {
        let bare = Cloud.Offers(dbaas: ["postgresql"])
        let listed = Cloud.Offers(dbaas: ["postgresql"], dbaasVersions: ["postgresql": ["15", "16"]])
        #expect(bare.sellsManaged("postgresql", version: "9.1"))
        #expect(!listed.sellsManaged("postgresql", version: "9.1"))
        #expect(listed.sellsManaged("postgresql", version: "16.2"))
        #expect(!listed.sellsManaged("redis", version: "7.2"))
    }
}
