import Testing
@testable import MCloudDatabaseEngines

/// Each vendor repository the catalog installs from, pinned to the vendor's documentation: the deb822 source
/// (URI, suite, components, the key file and the fingerprint apt must see signing), the key's URL, the pin that
/// holds the series, and the page it is taken from. A change of any of these must be a change of this table, made
/// against the page it cites (docs/databases.md lists the same).
struct VendorRepositoryTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var engine: String
        var version: String
        var family: ImageFamily
        var sources: String
        var keyURL: String
        var preferences: String?
        var documentation: String
        var testDescription: String { "\(engine) \(version) on \(family.rawValue)" }
    }

    static let cases: [Case] = [
        Case(
            engine: "postgresql", version: "16", family: .debian12,
            sources: "Types: deb\nURIs: https://apt.postgresql.org/pub/repos/apt\nSuites: bookworm-pgdg\nComponents: main\nSigned-By: /etc/apt/keyrings/pgdg.asc B97B0AFCAA1A47F044F244A07FCC7D46ACCC4CF8\n",
            keyURL: "https://www.postgresql.org/media/keys/ACCC4CF8.asc", preferences: nil,
            documentation: "https://www.postgresql.org/download/linux/debian/"
        ),
        Case(
            engine: "postgresql", version: "17", family: .ubuntu2404,
            sources: "Types: deb\nURIs: https://apt.postgresql.org/pub/repos/apt\nSuites: noble-pgdg\nComponents: main\nSigned-By: /etc/apt/keyrings/pgdg.asc B97B0AFCAA1A47F044F244A07FCC7D46ACCC4CF8\n",
            keyURL: "https://www.postgresql.org/media/keys/ACCC4CF8.asc", preferences: nil,
            documentation: "https://www.postgresql.org/download/linux/ubuntu/"
        ),
        Case(
            engine: "postgrespro", version: "16", family: .debian12,
            sources: "Types: deb\nURIs: https://repo.postgrespro.ru/std-16/debian\nSuites: bookworm\nComponents: main\nSigned-By: /etc/apt/keyrings/postgrespro-std-16.asc\n",
            keyURL: "https://repo.postgrespro.ru/keys/GPG-KEY-POSTGRESPRO", preferences: nil,
            documentation: "https://postgrespro.com/docs/postgrespro/16/binary-installation-on-linux"
        ),
        Case(
            engine: "mariadb", version: "11.4", family: .debian12,
            sources: "Types: deb\nURIs: https://dlm.mariadb.com/repo/mariadb-server/11.4/repo/debian\nSuites: bookworm\nComponents: main\nSigned-By: /etc/apt/keyrings/mariadb.gpg 177F4010FE56CA3336300305F1656F24C74CD1D8\n",
            keyURL: "https://supplychain.mariadb.com/mariadb-keyring-2019.gpg", preferences: "Package: *\nPin: origin dlm.mariadb.com\nPin-Priority: 1001\n",
            documentation: "https://mariadb.com/docs/server/server-management/install-and-upgrade-mariadb/installing-mariadb/binary-packages/mariadb-package-repository-setup-and-usage"
        ),
        Case(
            engine: "mysql", version: "10.11", family: .ubuntu2204,
            sources: "Types: deb\nURIs: https://dlm.mariadb.com/repo/mariadb-server/10.11/repo/ubuntu\nSuites: jammy\nComponents: main\nSigned-By: /etc/apt/keyrings/mariadb.gpg 177F4010FE56CA3336300305F1656F24C74CD1D8\n",
            keyURL: "https://supplychain.mariadb.com/mariadb-keyring-2019.gpg", preferences: "Package: *\nPin: origin dlm.mariadb.com\nPin-Priority: 1001\n",
            documentation: "https://mariadb.com/docs/server/server-management/install-and-upgrade-mariadb/installing-mariadb/binary-packages/gpg"
        ),
        Case(
            engine: "mysql", version: "8.0", family: .debian12,
            sources: "Types: deb\nURIs: http://repo.mysql.com/apt/debian/\nSuites: bookworm\nComponents: mysql-8.0\nSigned-By: /etc/apt/keyrings/mysql.asc BCA43417C3B485DD128EC6D4B7B3B788A8D3785C\n",
            keyURL: "https://repo.mysql.com/RPM-GPG-KEY-mysql-2023", preferences: "Package: *\nPin: origin repo.mysql.com\nPin-Priority: 1001\n",
            documentation: "https://dev.mysql.com/doc/mysql-apt-repo-quick-guide/en/"
        ),
        Case(
            engine: "mysql", version: "8.4", family: .ubuntu2404,
            sources: "Types: deb\nURIs: http://repo.mysql.com/apt/ubuntu/\nSuites: noble\nComponents: mysql-8.4-lts\nSigned-By: /etc/apt/keyrings/mysql.asc BCA43417C3B485DD128EC6D4B7B3B788A8D3785C\n",
            keyURL: "https://repo.mysql.com/RPM-GPG-KEY-mysql-2023", preferences: "Package: *\nPin: origin repo.mysql.com\nPin-Priority: 1001\n",
            documentation: "https://dev.mysql.com/doc/refman/8.4/en/checking-gpg-signature.html"
        ),
        Case(
            engine: "redis", version: "7.2", family: .debian12,
            sources: "Types: deb\nURIs: https://packages.redis.io/deb\nSuites: bookworm\nComponents: main\nSigned-By: /etc/apt/keyrings/redis.asc 54318FA4052D1E61A6B6F7BB5F4349D6BF53AA0C\n",
            keyURL: "https://packages.redis.io/gpg", preferences: "Package: redis redis-server redis-sentinel redis-tools\nPin: version 6:7.2.*\nPin-Priority: 1001\n",
            documentation: "https://github.com/redis/redis-debian"
        ),
        Case(
            engine: "clickhouse", version: "24.8", family: .ubuntu2204,
            sources: "Types: deb\nURIs: https://packages.clickhouse.com/deb\nSuites: stable\nComponents: main\nSigned-By: /etc/apt/keyrings/clickhouse.asc 3A9EA1193A97B548BE1457D48919F6BD2B48D754\n",
            keyURL: "https://packages.clickhouse.com/rpm/lts/repodata/repomd.xml.key",
            preferences: "Package: clickhouse-server clickhouse-client clickhouse-common-static\nPin: version 24.8.*\nPin-Priority: 1001\n",
            documentation: "https://clickhouse.com/docs/install/debian_ubuntu"
        ),
        Case(
            engine: "mongodb", version: "7.0", family: .debian12,
            sources: "Types: deb\nURIs: https://repo.mongodb.org/apt/debian\nSuites: bookworm/mongodb-org/7.0\nComponents: main\nSigned-By: /etc/apt/keyrings/mongodb-org-7.0.asc E58830201F7DD82CD808AA84160D26BB1785BA38\n",
            keyURL: "https://pgp.mongodb.com/server-7.0.asc", preferences: nil,
            documentation: "https://www.mongodb.com/docs/v7.0/tutorial/install-mongodb-on-debian/"
        ),
        Case(
            engine: "mongodb", version: "8.0", family: .ubuntu2404,
            sources: "Types: deb\nURIs: https://repo.mongodb.org/apt/ubuntu\nSuites: noble/mongodb-org/8.0\nComponents: multiverse\nSigned-By: /etc/apt/keyrings/mongodb-org-8.0.asc 4B0752C1BCA238C0B4EE14DC41DE058A4E7DCA05\n",
            keyURL: "https://pgp.mongodb.com/server-8.0.asc", preferences: nil,
            documentation: "https://www.mongodb.com/docs/v8.0/tutorial/install-mongodb-on-ubuntu/"
        ),
    ]

    @Test("the repository is the vendor's documented one", arguments: cases)
    func pinned(_ test: Case) throws {
        let recipe = try #require(EngineCatalog.recipe(engine: test.engine, version: test.version, family: test.family))
        let repository = try #require(recipe.repository, "\(recipe) installs from the distribution")
        #expect(repository.sources == test.sources)
        #expect(repository.keyURL == test.keyURL)
        #expect(repository.preferences == test.preferences)
        #expect(repository.documentation.contains(test.documentation))
    }

    @Test("every vendor recipe fetches its key over HTTPS, and every fingerprint is 40 hex digits", arguments: EngineCatalog.recipes.compactMap(\.repository))
    func keysOverHTTPS(_ repository: VendorRepository) {
        #expect(repository.keyURL.hasPrefix("https://"))
        #expect(repository.fingerprint.map { $0.count == 40 && $0.allSatisfy(\.isHexDigit) && $0 == $0.uppercased() } ?? true)
        #expect(!repository.documentation.isEmpty && repository.documentation.allSatisfy { $0.hasPrefix("https://") })
    }

    struct Distribution: Sendable, CustomTestStringConvertible {
        var engine: String
        var version: String
        var family: ImageFamily
        var packages: [String]
        var testDescription: String { "\(engine) \(version) on \(family.rawValue)" }
    }

    /// The series each distribution has: its own package, never a vendor's (databases.md, facts from the bed and
    /// packages.debian.org / packages.ubuntu.com).
    @Test("the distribution's package where it has the series", arguments: [
        Distribution(engine: "postgresql", version: "15", family: .debian12, packages: ["postgresql-15"]),
        Distribution(engine: "postgresql", version: "14", family: .ubuntu2204, packages: ["postgresql-14"]),
        Distribution(engine: "postgresql", version: "16", family: .ubuntu2404, packages: ["postgresql-16"]),
        Distribution(engine: "mariadb", version: "10.11", family: .debian12, packages: ["mariadb-server", "mariadb-client"]),
        Distribution(engine: "mysql", version: "10.6", family: .ubuntu2204, packages: ["mariadb-server", "mariadb-client"]),
        Distribution(engine: "mysql", version: "8.0", family: .ubuntu2404, packages: ["mysql-server-8.0", "mysql-client-8.0"]),
        Distribution(engine: "redis", version: "7.0", family: .debian12, packages: ["redis-server", "redis-tools"]),
        Distribution(engine: "redis", version: "6.0", family: .ubuntu2204, packages: ["redis-server", "redis-tools"]),
        Distribution(engine: "clickhouse", version: "18.16", family: .debian12, packages: ["clickhouse-server", "clickhouse-client"]),
        Distribution(engine: "clickhouse", version: "18.16", family: .ubuntu2404, packages: ["clickhouse-server", "clickhouse-client"]),
    ])
    func distribution(_ test: Distribution) throws {
        let recipe = try #require(EngineCatalog.recipe(engine: test.engine, version: test.version, family: test.family))
        #expect(recipe.source == .distribution)
        #expect(recipe.packages == test.packages)
        #expect(recipe.proof == (test.family == .debian12 ? .bed : .checks))
    }

    @Test func whatTheCatalogCoversAndWhatItRefuses() {
        #expect(EngineCatalog.series(engine: "postgresql", family: .debian12) == ["13", "14", "15", "16", "17"])
        #expect(EngineCatalog.recipe(engine: "postgresql", version: "16.4", family: .debian12)?.series == "16")
        #expect(EngineCatalog.recipe(engine: "postgresql", version: "160", family: .debian12) == nil)
        #expect(EngineCatalog.recipe(engine: "postgresql", version: "12", family: .debian12) == nil)
        #expect(EngineCatalog.recipe(engine: "mongodb", version: "7.0", family: .ubuntu2404) == nil)
        #expect(EngineCatalog.recipe(engine: "mariadb", version: "10.11", family: .debian12) == EngineCatalog.recipe(engine: "mysql", version: "10.11", family: .debian12))
        #expect(ImageFamily.allCases.allSatisfy { EngineCatalog.series(engine: "arenadata", family: $0).isEmpty })
        #expect(Engine.arenadata.managedOnlyReason != nil)
        #expect(Engine.canonicalName("mariadb") == "mysql" && Engine.canonicalName("oracle") == "oracle")
        // Exactly the engines Debian 12 ships are proven on the bed.
        #expect(EngineCatalog.recipes.filter { $0.proof == .bed }.map(\.description).sorted() == [
            "clickhouse 18.16 on debian-12", "mysql 10.11 on debian-12", "postgresql 15 on debian-12", "redis 7.0 on debian-12",
        ])
    }
}
