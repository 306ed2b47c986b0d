import Foundation
import MCloudCore
import MCloudManifest
import Testing

/// What no cloud of the catalog can deliver is refused at plan time: the exact message at `spec.engine` or
/// `spec.version`, with the versions that are supported; what some cloud can deliver (its VM image's recipe, or a
/// managed offer) passes. And the catalog's image families (`spec.vm.image`) are checked where they are written.
@Suite struct DeliveryCheckTests {
    typealias Change = ManifestInput.Change

    /// With `hosting`, on line 11, and `standbys` after it.
    static func database(engine: String, version: String, hosting: String? = nil, standbys: Int? = nil) -> Change {
        .add("extra.yaml", Template.database.replacingOccurrences(of: "engine: postgresql\n  version: \"16\"", with: "engine: \(engine)\n  version: \"\(version)\"")
            + (hosting.map { "  hosting: \($0)\n" } ?? "") + (standbys.map { "  standbys: \($0)\n" } ?? ""))
    }

    /// The base Application keeps engines portable; these cases are about engines outside that list too.
    static let anyEngine: Change = .replace(in: "app.yaml", "portability: strict", with: "portability: any")

    /// The managed offers of the catalog's one cloud that sells engines managed (vk-msk), as written.
    static func versions(_ dbaas: String) -> Change {
        .replace(in: "clouds.yaml", "    dbaas: [postgresql, redis]", with: "    dbaas: \(dbaas)")
    }

    /// aws-fra's managed offers, which it has none of as written.
    static func awsSells(_ dbaas: String) -> Change {
        .replace(in: "clouds.yaml", "  offers: { kubernetes: true, vm: true, objectStorage: true }", with: "  offers: { kubernetes: true, vm: true, dbaas: \(dbaas), objectStorage: true }")
    }

    static let debianFamilies = "on debian-12"
    static let arenadataReason = "Arenadata DB is a Greenplum-based MPP system of master and segment hosts; mcloud has no sound single-VM recipe for it, so it runs only where a cloud offers it managed (offers.dbaas)"

    static let cases: [MalformedCase] = [
        MalformedCase("a MongoDB series with no recipe on the catalog's images and no managed offer", [database(engine: "mongodb", version: "6.0")], [
            #"extra.yaml:6:12: error: spec.version: mongodb "6.0" has no recipe for the VM images of the catalog (debian-12) and no cloud offers managed mongodb; supported: 7.0, 8.0 on debian-12"#,
        ]),
        MalformedCase("a MySQL series no recipe has", [database(engine: "mysql", version: "5.7")], [
            #"extra.yaml:6:12: error: spec.version: mysql "5.7" has no recipe for the VM images of the catalog (debian-12) and no cloud offers managed mysql; supported: 10.6, 10.11, 11.4, 8.0, 8.4 on debian-12"#,
        ]),
        MalformedCase("a PostgreSQL major past the catalog's", [database(engine: "postgrespro", version: "12"), anyEngine], [
            #"extra.yaml:6:12: error: spec.version: postgrespro "12" has no recipe for the VM images of the catalog (debian-12) and no cloud offers managed postgrespro; supported: 15, 16, 17 on debian-12"#,
        ]),
        MalformedCase("Arenadata DB without a managed offer", [database(engine: "arenadata", version: "6.27"), anyEngine], [
            "extra.yaml:5:11: error: spec.engine: arenadata: \(arenadataReason); no cloud of the catalog lists arenadata in offers.dbaas",
        ]),
        MalformedCase("an engine mcloud has no recipe for and no cloud offers", [database(engine: "oracle", version: "19"), anyEngine], [
            #"extra.yaml:5:11: error: spec.engine: mcloud has no recipe for "oracle" and no cloud offers it in offers.dbaas; engines with recipes: clickhouse, mongodb, mysql (alias mariadb), postgrespro, postgresql, redis"#,
        ]),
        MalformedCase("the recipes of the image family the catalog names", [
            database(engine: "mongodb", version: "7.0"),
            .replace(in: "clouds.yaml", "  capacity: { vcpu: 512", with: "  vm: { image: { family: ubuntu-24.04, name: ubuntu-24.04-server } }\n  capacity: { vcpu: 512"),
            .replace(in: "clouds.yaml", "  offers: { kubernetes: true, vm: true, objectStorage: true }", with: "  offers: { kubernetes: true, vm: false, objectStorage: true }"),
        ], [
            #"extra.yaml:6:12: error: spec.version: mongodb "7.0" has no recipe for the VM images of the catalog (ubuntu-24.04) and no cloud offers managed mongodb; supported: 8.0 on ubuntu-24.04"#,
        ]),
        MalformedCase("no cloud offers VMs or the engine managed", [
            database(engine: "clickhouse", version: "24.8"),
            .replace(in: "clouds.yaml", "    vm: true\n", with: "    vm: false\n"),
            .replace(in: "clouds.yaml", "  offers: { kubernetes: true, vm: true, objectStorage: true }", with: "  offers: { kubernetes: true, vm: false, objectStorage: true }"),
        ], [
            "extra.yaml:5:11: error: spec.engine: no cloud of the catalog offers VMs (offers.vm) or managed clickhouse (offers.dbaas)",
        ]),
        MalformedCase("a managed hosting where no cloud sells the engine managed", [database(engine: "mongodb", version: "7.0", hosting: "managed")], [
            "extra.yaml:11:12: error: spec.hosting: managed, and no cloud of the catalog lists mongodb in offers.dbaas; set hosting: any to run it on VMs",
        ]),
        MalformedCase("a VM hosting for a version only a managed offer runs", [database(engine: "redis", version: "5.0", hosting: "vm")], [
            #"extra.yaml:6:12: error: spec.version: redis "5.0" has no recipe for the VM images of the catalog (debian-12) and hosting: vm leaves out the managed redis of vk-msk; supported: 7.0, 7.2, 7.4 on debian-12"#,
        ]),
        MalformedCase("PostgreSQL 9.1 against managed offers with versions", [
            database(engine: "postgresql", version: "9.1"), Self.versions(#"{ postgresql: ["14", "15", "16"], redis: ["7.2"] }"#),
        ], [
            #"extra.yaml:6:12: error: spec.version: postgresql "9.1" has no recipe for the VM images of the catalog (debian-12) and no cloud sells it managed (offers.dbaas lists "14", "15", "16" on vk-msk); supported: 13, 14, 15, 16, 17 on debian-12"#,
        ]),
        MalformedCase("PostgreSQL 9.1 against two clouds' managed versions", [
            database(engine: "postgresql", version: "9.1"), Self.versions(#"{ postgresql: ["14", "15", "16"], redis: ["7.2"] }"#), Self.awsSells(#"{ postgresql: ["13", "17"] }"#),
        ], [
            #"extra.yaml:6:12: error: spec.version: postgresql "9.1" has no recipe for the VM images of the catalog (debian-12) and no cloud sells it managed (offers.dbaas lists "14", "15", "16" on vk-msk; "13", "17" on aws-fra); supported: 13, 14, 15, 16, 17 on debian-12"#,
        ]),
        MalformedCase("a managed hosting for a version no offer lists", [
            database(engine: "postgresql", version: "13", hosting: "managed"), Self.versions(#"{ postgresql: ["14", "15", "16"], redis: ["7.2"] }"#),
        ], [
            #"extra.yaml:6:12: error: spec.version: postgresql "13" is sold managed by no cloud of the catalog (offers.dbaas lists "14", "15", "16" on vk-msk); hosting: managed rules out VMs"#,
        ]),
        MalformedCase("a managed-only engine in a version no offer lists", [
            database(engine: "arenadata", version: "7.1"), anyEngine, Self.versions(#"{ postgresql: ["16"], arenadata: ["6"] }"#),
        ], [
            #"extra.yaml:6:12: error: spec.version: arenadata "7.1" is sold managed by no cloud of the catalog (offers.dbaas lists "6" on vk-msk), and mcloud runs arenadata on no VM"#,
        ]),
        MalformedCase("standbys on MongoDB VMs, which cannot replicate yet", [database(engine: "mongodb", version: "7.0", standbys: 1)], [
            #"extra.yaml:11:13: error: spec.standbys: 1, and mcloud's mongodb "7.0" VMs cannot replicate to a standby yet (standbys replicate on VMs for postgresql, mysql, redis); set standbys: 0, or run it where a cloud sells mongodb managed (offers.dbaas)"#,
        ]),
        MalformedCase("standbys on ClickHouse VMs, which cannot replicate yet", [database(engine: "clickhouse", version: "24.8", standbys: 1), anyEngine], [
            #"extra.yaml:11:13: error: spec.standbys: 1, and mcloud's clickhouse "24.8" VMs cannot replicate to a standby yet (standbys replicate on VMs for postgresql, mysql, redis); set standbys: 0, or run it where a cloud sells clickhouse managed (offers.dbaas)"#,
        ]),
        MalformedCase("offers.dbaas neither a list nor a mapping", [Self.versions("postgresql")], [
            "clouds.yaml:13:12: error: spec.offers.dbaas must be a list of engines or a mapping of engines to their versions, found a string",
        ]),
        MalformedCase("an engine with no versions", [Self.versions("{ postgresql: [] }")], [
            "clouds.yaml:13:26: error: spec.offers.dbaas.postgresql must not be empty",
        ]),
        MalformedCase("a version YAML reads as a number", [Self.versions("{ postgresql: [16] }")], [
            #"clouds.yaml:13:27: error: spec.offers.dbaas.postgresql[0] must be a string, found an integer (16); quote it: "16""#,
        ]),
        MalformedCase("an engine name that is no name", [Self.versions(#"{ Post_gres: ["16"] }"#)], [
            #"clouds.yaml:13:14: error: spec.offers.dbaas.Post_gres: "Post_gres" is not a valid name: use only lower-case letters, digits and '-'"#,
        ]),
        MalformedCase("an image family the engine catalog does not know", [
            .replace(in: "clouds.yaml", "  capacity: { vcpu: 512", with: "  vm: { image: { family: centos-9, id: img-1 } }\n  capacity: { vcpu: 512"),
        ], [
            #"clouds.yaml:16:26: error: spec.vm.image.family: "centos-9" is no image family the engine catalog has recipes for; use one of debian-12, ubuntu-22.04, ubuntu-24.04"#,
        ]),
        MalformedCase("an Ubuntu family with nothing to find its image by", [
            .replace(in: "clouds.yaml", "  capacity: { vcpu: 1024", with: "  vm: { image: { family: ubuntu-22.04 } }\n  capacity: { vcpu: 1024"),
        ], [
            "clouds.yaml:39:16: error: spec.vm.image: a ubuntu-22.04 image needs id, or name and owner to be found; only Debian 12 has a standard one",
        ]),
    ]

    static let deliverable: [MalformedCase] = [
        MalformedCase("an OpenStack image of the Glance project the catalog names", [
            .replace(in: "clouds.yaml", "  capacity: { vcpu: 512", with: "  vm: { image: { family: debian-12, name: debian-12, owner: 5f1e0c7d9a8b4c3e } }\n  capacity: { vcpu: 512"),
        ], []),
        MalformedCase("a vendor-repository series on the standard Debian 12 image", [database(engine: "clickhouse", version: "24.8")], []),
        MalformedCase("MariaDB, the mysql engine's alias", [database(engine: "mariadb", version: "10.11.6")], []),
        MalformedCase("standbys of PostgreSQL and Redis VMs, which replicate", [
            database(engine: "postgresql", version: "16", hosting: "vm", standbys: 2),
            .add("cache.yaml", Template.database.replacingOccurrences(of: "ledger-db", with: "cache").replacingOccurrences(of: "engine: postgresql\n  version: \"16\"", with: "engine: redis\n  version: \"7.0\"") + "  hosting: vm\n  standbys: 1\n"),
        ], []),
        MalformedCase("standbys of MariaDB VMs, which replicate", [database(engine: "mariadb", version: "10.11", hosting: "vm", standbys: 1)], []),
        MalformedCase("standbys of Oracle MySQL VMs, which replicate", [database(engine: "mysql", version: "8.4", hosting: "vm", standbys: 2)], []),
        MalformedCase("standbys of ClickHouse where a cloud sells it managed", [
            database(engine: "clickhouse", version: "24.8", standbys: 1), anyEngine, Self.versions("[postgresql, redis, clickhouse]"),
        ], []),
        MalformedCase("Arenadata DB where a cloud offers it managed", [
            database(engine: "arenadata", version: "6.27"), anyEngine,
            .replace(in: "clouds.yaml", "    dbaas: [postgresql, redis]", with: "    dbaas: [postgresql, redis, arenadata]"),
        ], []),
        MalformedCase("any version of an engine a cloud offers managed", [database(engine: "redis", version: "5.0")], []),
        MalformedCase("a managed hosting for a version only one cloud sells", [
            database(engine: "postgresql", version: "13", hosting: "managed"), Self.versions(#"{ postgresql: ["14", "15", "16"], redis: ["7.2"] }"#),
            Self.awsSells(#"{ postgresql: ["13", "17"] }"#),
        ], []),
        MalformedCase("a patch release of a major a managed offer lists", [
            database(engine: "redis", version: "5.0.14", hosting: "managed"), Self.versions(#"{ postgresql: ["16"], redis: ["5", "6.2"] }"#),
        ], []),
        MalformedCase("mariadb's versions offered as mysql's", [
            database(engine: "mysql", version: "10.5", hosting: "managed"), Self.versions(#"{ postgresql: ["16"], mariadb: ["10.5"] }"#),
        ], []),
        MalformedCase("a family the catalog names with its image", [
            database(engine: "mongodb", version: "8.0"),
            .replace(in: "clouds.yaml", "  capacity: { vcpu: 512", with: "  vm: { image: { family: ubuntu-24.04, properties: { os_distro: ubuntu, os_version: \"24.04\" } } }\n  capacity: { vcpu: 512"),
        ], []),
    ]

    @Test("refused at plan time with the position and the supported versions", arguments: cases)
    func refused(_ input: MalformedCase) throws {
        let set = ManifestLoader.load(try ManifestInput.sources(input.changes))
        #expect(set.diagnostics.map(\.description) == input.expected)
        #expect(set.model == nil)
    }

    @Test("deliverable somewhere, so it validates", arguments: deliverable)
    func validates(_ input: MalformedCase) throws {
        let set = ManifestLoader.load(try ManifestInput.sources(input.changes))
        #expect(set.diagnostics.map(\.description) == [])
        #expect(set.model != nil)
    }
}
