import Foundation
import MCloudManifest
import Testing
import MCloudCore

/// One malformed input and the complete list of diagnostics it must produce, in the loader's order.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    var behaviour: String
    var changes: [ManifestInput.Change]
    var expected: [String]

    init(_ behaviour: String, _ changes: [ManifestInput.Change], _ expected: [String]) {
        self.behaviour = behaviour
        self.changes = changes
        self.expected = expected
    }

    var testDescription: String { behaviour }
    var expectsErrors: Bool { expected.contains { $0.contains(": error: ") || $0.hasPrefix("error: ") } }
}

/// Every malformed input gets exactly the listed diagnostics: the full `FILE:LINE:COL: severity: message` lines, so a
/// wrong position, a changed word or an extra diagnostic all fail.
///
/// Inputs are the `Fixtures/base` files with one exact change, or the base plus a small `extra.yaml` (see `Template`).
/// A broken field usually sits in such an extra document that nothing refers to, so each case is about the field alone.
@Suite struct MalformedManifestTests {
    @Test(arguments: MalformedCase.all)
    func reportsEveryProblemWithItsPosition(_ input: MalformedCase) throws {
        let set = ManifestLoader.load(try ManifestInput.sources(input.changes))
        #expect(set.diagnostics.map(\.description) == input.expected)
        if input.expectsErrors {
            #expect(set.model == nil, "a model must never come out of input with errors")
        } else {
            #expect(set.model != nil, "input with warnings only must still give a model")
        }
    }

    @Test func tableIsLargeAndNamesAreUnique() {
        #expect(MalformedCase.all.count >= 70)
        let names = (MalformedCase.all + MalformedCase.regressions).map(\.behaviour)
        #expect(Set(names).count == names.count)
    }
}

extension MalformedCase {
    typealias Change = ManifestInput.Change

    static let all: [MalformedCase] = wrongTypes + missingKeys + badNames + badQuantities + unknownKeys + references
        + documents + rules + yaml + policies + dataClasses + numericTraps + yamlHints + hosting + locality

    // MARK: Wrong types

    static let wrongTypes: [MalformedCase] = [
        MalformedCase("a word where replicas needs an integer", .extra(Template.service, "replicas: 2", "replicas: four"), [
            "extra.yaml:6:13: error: spec.replicas must be an integer, found a string (four)",
        ]),
        MalformedCase("a quoted number where replicas needs an integer", .extra(Template.service, "replicas: 2", #"replicas: "2""#), [
            #"extra.yaml:6:13: error: spec.replicas must be an integer, found a string ("2"); remove the quotes"#,
        ]),
        MalformedCase("a fraction where replicas needs a whole number", .extra(Template.service, "replicas: 2", "replicas: 2.5"), [
            "extra.yaml:6:13: error: spec.replicas must be a whole number, found 2.5",
        ]),
        MalformedCase("a list where resources needs a mapping", .extra(Template.service, "resources: { cpu: 250m, memory: 256Mi }", "resources: [250m, 256Mi]"), [
            "extra.yaml:7:14: error: spec.resources must be a mapping, found a list",
        ]),
        MalformedCase("a mapping where image needs a string", .extra(Template.service, "image: registry.example/worker:1.0.0", "image: { name: worker }"), [
            "extra.yaml:5:10: error: spec.image must be a string, found a mapping",
        ]),
        MalformedCase("a scalar where metadata needs a mapping", .extra(Template.service, "metadata: { name: worker }", "metadata: worker"), [
            "extra.yaml:3:11: error: metadata must be a mapping, found a string",
        ]),
        MalformedCase("a list where spec needs a mapping", .extra(Template.cdn, "spec:\n  origins: [payments-api]\n  trafficGiBMonth: 100\n", "spec: [payments-api]\n"), [
            "extra.yaml:4:7: error: spec must be a mapping, found a list",
        ]),
        MalformedCase("a string where data needs a list", .extra(Template.service, adding: "  data: personal\n"), [
            "extra.yaml:9:9: error: spec.data must be a list, found a string",
        ]),
        MalformedCase("a word where a CDN's trafficGiBMonth needs a number", .app("trafficGiBMonth: 5000", "trafficGiBMonth: lots"), [
            "app.yaml:53:20: error: spec.trafficGiBMonth must be a number, found a string (lots)",
        ]),
        // Regression: a capacity beyond Int's range once a placement is divided into it trapped the planner.
        MalformedCase("capacities beyond any cloud", .clouds("vcpu: 512, memoryGiB: 2048", "vcpu: 1e30, memoryGiB: 2e15"), [
            "clouds.yaml:16:21: error: spec.capacity.vcpu: 1e30 is more than any cloud holds; at most 1000000000000 is accepted",
            "clouds.yaml:16:38: error: spec.capacity.memoryGiB: 2e15 is more than any cloud holds; at most 1000000000000 is accepted",
        ]),
        MalformedCase("a quoted number where a capacity needs a number", .clouds("vcpu: 512", #"vcpu: "512""#), [
            #"clouds.yaml:16:21: error: spec.capacity.vcpu must be a number, found a string ("512"); remove the quotes"#,
        ]),
        MalformedCase("infinity where a price needs a finite number", .clouds("egressGiB: 1.5", "egressGiB: .inf"), [
            "clouds.yaml:23:16: error: spec.pricing.egressGiB must be a finite number, found .inf",
        ]),
        MalformedCase("a negative price", .clouds("vcpuHour: 1.2", "vcpuHour: -1.2"), [
            "clouds.yaml:19:15: error: spec.pricing.vcpuHour must not be negative, found -1.2",
        ]),
        MalformedCase("on where a boolean is needed", .extra(Template.service, adding: "  expose: { public: on }\n"), [
            #"extra.yaml:9:21: error: spec.expose.public must be true or false; "on" is a string in YAML 1.2, write true"#,
        ]),
        MalformedCase("yes where a boolean is needed", .clouds("    kubernetes: true\n", "    kubernetes: yes\n"), [
            #"clouds.yaml:11:17: error: spec.offers.kubernetes must be true or false; "yes" is a string in YAML 1.2, write true"#,
        ]),
        MalformedCase("a quoted true where a boolean is needed", .extra(Template.database, adding: "    disasterRecovery: { differentVendor: \"true\" }\n"), [
            "extra.yaml:11:42: error: spec.backup.disasterRecovery.differentVendor must be true or false, found a string (true)",
        ]),
        MalformedCase("a plain 15 where version needs a string", .extra(Template.database, #"version: "16""#, "version: 15"), [
            #"extra.yaml:6:12: error: spec.version must be a string, found an integer (15); quote it: "15""#,
        ]),
        MalformedCase("a plain 9.6 where version needs a string", .extra(Template.database, #"version: "16""#, "version: 9.6"), [
            #"extra.yaml:6:12: error: spec.version must be a string, found a number (9.6); quote it: "9.6""#,
        ]),
        MalformedCase("a mapping where audiences needs a list", .app("  audiences:\n    - { name: ru, jurisdiction: RU, latencyMs: 50 }\n    - { name: eu, jurisdiction: EU, latencyMs: 60 }\n", "  audiences: { ru: RU, eu: EU }\n"), [
            "app.yaml:7:14: error: spec.audiences must be a list, found a mapping",
        ]),
        MalformedCase("a number where an env value needs a string", .extra(Template.service, adding: "  env: { WORKERS: 4 }\n"), [
            #"extra.yaml:9:19: error: spec.env.WORKERS must be a string, found an integer (4); quote it: "4""#,
        ]),
        MalformedCase("a null env value", .extra(Template.service, adding: "  env: { LOG_LEVEL: }\n"), [
            "extra.yaml:9:21: error: spec.env.LOG_LEVEL has no value; expected a string",
        ]),
        MalformedCase("a number where a label value needs a string", .extra(Template.service, "metadata: { name: worker }", "metadata: { name: worker, labels: { tier: 1 } }"), [
            #"extra.yaml:3:43: error: metadata.labels.tier must be a string, found an integer (1); quote it: "1""#,
        ]),
        MalformedCase("a number as a mapping key", .extra(Template.service, adding: "  1: one\n"), [
            "extra.yaml:9:3: error: spec: keys must be strings, found an integer",
        ]),
        MalformedCase("a port number out of range", .extra(Template.service, "port: 8080", "port: 70000"), [
            "extra.yaml:8:31: error: spec.ports[0].port must be at most 65535, found 70000",
        ]),
    ]

    // MARK: Missing required keys

    static let missingKeys: [MalformedCase] = [
        MalformedCase("a document without apiVersion", .extra(Template.service, "apiVersion: mcloud/v1\n", ""), [
            #"extra.yaml:1:1: error: manifest: missing required key "apiVersion""#,
        ]),
        MalformedCase("a document without kind", .extra(Template.service, "kind: Service\n", ""), [
            #"extra.yaml:1:1: error: manifest: missing required key "kind""#,
        ]),
        MalformedCase("a document without metadata", .extra(Template.service, "metadata: { name: worker }\n", ""), [
            #"extra.yaml:1:1: error: manifest: missing required key "metadata""#,
        ]),
        MalformedCase("a document without spec", [.add("extra.yaml", "apiVersion: mcloud/v1\nkind: Service\nmetadata: { name: worker }\n")], [
            #"extra.yaml:1:1: error: manifest: missing required key "spec""#,
        ]),
        MalformedCase("metadata without name", .extra(Template.service, "metadata: { name: worker }", "metadata: { labels: { team: web } }"), [
            #"extra.yaml:3:11: error: metadata: missing required key "name""#,
        ]),
        MalformedCase("a Service without image", .extra(Template.service, "  image: registry.example/worker:1.0.0\n", ""), [
            #"extra.yaml:5:3: error: spec: missing required key "image""#,
        ]),
        MalformedCase("a Service without replicas", .extra(Template.service, "  replicas: 2\n", ""), [
            #"extra.yaml:5:3: error: spec: missing required key "replicas""#,
        ]),
        MalformedCase("a Service without resources", .extra(Template.service, "  resources: { cpu: 250m, memory: 256Mi }\n", ""), [
            #"extra.yaml:5:3: error: spec: missing required key "resources""#,
        ]),
        MalformedCase("resources without memory", .extra(Template.service, "{ cpu: 250m, memory: 256Mi }", "{ cpu: 250m }"), [
            #"extra.yaml:7:14: error: spec.resources: missing required key "memory""#,
        ]),
        MalformedCase("a port without a number", .extra(Template.service, "[{ name: http, port: 8080 }]", "[{ name: http }]"), [
            #"extra.yaml:8:11: error: spec.ports[0]: missing required key "port""#,
        ]),
        MalformedCase("an Application without currency", .app("  currency: USD\n", ""), [
            #"app.yaml:5:3: error: spec: missing required key "currency""#,
        ]),
        MalformedCase("an Application without audiences", .app("  audiences:\n    - { name: ru, jurisdiction: RU, latencyMs: 50 }\n    - { name: eu, jurisdiction: EU, latencyMs: 60 }\n", ""), [
            #"app.yaml:5:3: error: spec: missing required key "audiences""#,
        ]),
        MalformedCase("an audience without jurisdiction", .app("{ name: eu, jurisdiction: EU, latencyMs: 60 }", "{ name: eu, latencyMs: 60 }"), [
            #"app.yaml:9:7: error: spec.audiences[1]: missing required key "jurisdiction""#,
        ]),
        MalformedCase("a residency rule without allowed", .app("{ data: personal, audience: eu, allowed: [EU], law: GDPR }", "{ data: personal, audience: eu, law: GDPR }"), [
            #"app.yaml:12:7: error: spec.residency[1]: missing required key "allowed""#,
        ]),
        MalformedCase("a Database without engine", .extra(Template.database, "  engine: postgresql\n", ""), [
            #"extra.yaml:5:3: error: spec: missing required key "engine""#,
        ]),
        MalformedCase("a Database without version and size", .extra(Template.database, "  version: \"16\"\n  size: { vcpu: 2, memoryGiB: 8, storageGiB: 100 }\n", ""), [
            #"extra.yaml:5:3: error: spec: missing required key "size""#,
            #"extra.yaml:5:3: error: spec: missing required key "version""#,
        ]),
        MalformedCase("a backup without schedule", .extra(Template.database, "    schedule: \"0 3 * * *\"\n", ""), [
            #"extra.yaml:9:5: error: spec.backup: missing required key "schedule""#,
        ]),
        MalformedCase("a Cloud without vendor", .extra(Template.cloud, "  vendor: selectel\n", ""), [
            #"extra.yaml:5:3: error: spec: missing required key "vendor""#,
        ]),
        MalformedCase("a Cloud without pricing", .extra(Template.cloud, "  pricing:\n    currency: RUB\n    vcpuHour: 1.1\n    memoryGiBHour: 0.35\n    storageGiBMonth: 7\n    objectStorageGiBMonth: 1.8\n    egressGiB: 1.2\n", ""), [
            #"extra.yaml:5:3: error: spec: missing required key "pricing""#,
        ]),
        MalformedCase("a capacity without storageGiB", .extra(Template.cloud, ", storageGiB: 10000 }", " }"), [
            #"extra.yaml:10:13: error: spec.capacity: missing required key "storageGiB""#,
        ]),
        MalformedCase("a CDN without origins", .app("  origins: [payments-api]\n", ""), [
            #"app.yaml:51:3: error: spec: missing required key "origins""#,
        ]),
        MalformedCase("a cache rule without ttlSeconds", .app(#"[{ path: "/static/*", ttlSeconds: 86400 }]"#, #"[{ path: "/static/*" }]"#), [
            #"app.yaml:54:11: error: spec.cache[0]: missing required key "ttlSeconds""#,
        ]),
    ]

    // MARK: Names

    static let badNames: [MalformedCase] = [
        MalformedCase("a name in upper case", .extra(Template.service, "name: worker }", "name: Worker }"), [
            #"extra.yaml:3:19: error: metadata.name: "Worker" is not a valid name: use lower case ("worker")"#,
        ]),
        MalformedCase("a name longer than 63 characters", .extra(Template.service, "name: worker }", "name: \(String(repeating: "w", count: 64)) }"), [
            #"extra.yaml:3:19: error: metadata.name: "wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww" is not a valid name: it is 64 characters long; at most 63 are allowed"#,
        ]),
        MalformedCase("a name with an underscore", .extra(Template.database, "name: ledger-db }", "name: ledger_db }"), [
            #"extra.yaml:3:19: error: metadata.name: "ledger_db" is not a valid name: use only lower-case letters, digits and '-'"#,
        ]),
        MalformedCase("a name with a leading dash", .extra(Template.cdn, "name: assets }", "name: -assets }"), [
            #"extra.yaml:3:19: error: metadata.name: "-assets" is not a valid name: it must start and end with a letter or digit"#,
        ]),
        MalformedCase("an empty name", .extra(Template.cdn, "name: assets }", #"name: "" }"#), [
            #"extra.yaml:3:19: error: metadata.name: "" is not a valid name: it is empty"#,
        ]),
        MalformedCase("a number as a name", .extra(Template.cdn, "name: assets }", "name: 42 }"), [
            #"extra.yaml:3:19: error: metadata.name must be a string, found an integer (42); quote it: "42""#,
        ]),
        MalformedCase("an engine name with a space", .extra(Template.database, "engine: postgresql", "engine: postgre sql"), [
            #"extra.yaml:5:11: error: spec.engine: "postgre sql" is not a valid name: use only lower-case letters, digits and '-'"#,
        ]),
        MalformedCase("a port name of 16 characters", .extra(Template.service, "name: http,", "name: metrics-exporter,"), [
            #"extra.yaml:8:19: error: spec.ports[0].name: "metrics-exporter" is not a port name: at most 15 characters, with a letter and no "--" (Kubernetes IANA_SVC_NAME)"#,
        ]),
        MalformedCase("an environment variable name with a dash", .extra(Template.service, adding: "  env: { LOG-LEVEL: info }\n"), [
            #"extra.yaml:9:10: error: spec.env: "LOG-LEVEL" is not an environment variable name (letters, digits and '_', not starting with a digit)"#,
        ]),
        MalformedCase("an environment variable name starting with a digit", .extra(Template.service, adding: "  env: { 1ST_RUN: \"yes\" }\n"), [
            #"extra.yaml:9:10: error: spec.env: "1ST_RUN" is not an environment variable name (letters, digits and '_', not starting with a digit)"#,
        ]),
        MalformedCase("a jurisdiction tag in lower case", .clouds("jurisdiction: [RU]", "jurisdiction: [ru]"), [
            #"clouds.yaml:7:18: error: spec.jurisdiction[0]: "ru" is not a jurisdiction tag: use upper-case letters and digits, such as RU or EU; did you mean "RU"?"#,
        ]),
        MalformedCase("an audience jurisdiction in lower case", .app("{ name: ru, jurisdiction: RU,", "{ name: ru, jurisdiction: ru,"), [
            #"app.yaml:8:33: error: spec.audiences[0].jurisdiction: "ru" is not a jurisdiction tag: use upper-case letters and digits, such as RU or EU; did you mean "RU"?"#,
        ]),
        MalformedCase("an application currency in lower case", .app("currency: USD", "currency: usd"), [
            #"app.yaml:5:13: error: spec.currency: "usd" is not a currency code: use three upper-case letters (ISO 4217), such as USD, EUR or RUB"#,
        ]),
        MalformedCase("two audiences with one name", .app("{ name: eu, jurisdiction: EU, latencyMs: 60 }", "{ name: ru, jurisdiction: EU, latencyMs: 60 }"), [
            #"app.yaml:9:15: error: spec.audiences[1].name: audience "ru" is already defined at app.yaml:8:15"#,
        ]),
        MalformedCase("a CDN point of presence in lower case", .clouds("pops: [RU, KZ]", "pops: [RU, kz]"), [
            #"clouds.yaml:15:23: error: spec.offers.cdn.pops[1]: "kz" is not a jurisdiction tag: use upper-case letters and digits, such as RU or EU; did you mean "KZ"?"#,
        ]),
        MalformedCase("a currency code in lower case", .clouds("currency: USD", "currency: usd"), [
            #"clouds.yaml:40:24: error: spec.pricing.currency: "usd" is not a currency code: use three upper-case letters (ISO 4217), such as USD, EUR or RUB"#,
        ]),
        MalformedCase("an exchange rate keyed by a lower-case code", .app("exchangeRates: { RUB: 0.011 }", "exchangeRates: { rub: 0.011 }"), [
            #"app.yaml:6:20: error: spec.exchangeRates: "rub" is not a currency code: use three upper-case letters, such as RUB"#,
            #"clouds.yaml:18:15: error: spec.pricing.currency: RUB has no exchange rate; add it to spec.exchangeRates of Application "retail-bank" (app.yaml:3:19)"#,
        ]),
    ]

    // MARK: Quantities

    static let badQuantities: [MalformedCase] = [
        MalformedCase("cpu with an unknown unit", .extra(Template.service, "cpu: 250m", "cpu: 500x"), [
            #"extra.yaml:7:21: error: spec.resources.cpu: "500x" has a wrong unit: cpu takes no unit but m (millicores): write 500m or 2"#,
        ]),
        MalformedCase("negative cpu", .extra(Template.service, "cpu: 250m", "cpu: -1"), [
            #"extra.yaml:7:21: error: spec.resources.cpu: "-1" is negative; quantities must be zero or more"#,
        ]),
        MalformedCase("cpu finer than a millicore", .extra(Template.service, "cpu: 250m", "cpu: 1.5m"), [
            #"extra.yaml:7:21: error: spec.resources.cpu: "1.5m" is too precise: cpu is counted in whole millicores; 1m is the smallest step"#,
        ]),
        MalformedCase("zero cpu", .extra(Template.service, "cpu: 250m", "cpu: 0"), [
            "extra.yaml:7:21: error: spec.resources.cpu must be more than 0",
        ]),
        MalformedCase("memory in millibytes", .extra(Template.service, "memory: 256Mi", "memory: 512m"), [
            #"extra.yaml:7:35: error: spec.resources.memory: "512m" has a wrong unit: memory in m means thousandths of a byte; did you mean 512Mi?"#,
        ]),
        MalformedCase("memory in GB", .extra(Template.service, "memory: 256Mi", "memory: 4GB"), [
            #"extra.yaml:7:35: error: spec.resources.memory: "4GB" has a wrong unit: memory units are Ki, Mi, Gi, Ti (binary) or k, M, G, T (decimal)"#,
        ]),
        MalformedCase("empty memory", .extra(Template.service, "memory: 256Mi", #"memory: """#), [
            #"extra.yaml:7:35: error: spec.resources.memory: "" is not a quantity (a number with an optional unit, such as 500m, 2, 512Mi or 4Gi)"#,
        ]),
        MalformedCase("memory with no value", .extra(Template.service, "memory: 256Mi", "memory: "), [
            "extra.yaml:7:36: error: spec.resources.memory must be a quantity such as 500m or 512Mi, found null",
        ]),
        MalformedCase("a fraction of a byte", .extra(Template.service, "memory: 256Mi", "memory: 1.5"), [
            #"extra.yaml:7:35: error: spec.resources.memory: "1.5" is too precise: memory must come to a whole number of bytes"#,
        ]),
        MalformedCase("a limit below the cpu request", .extra(Template.service, "memory: 256Mi }", "memory: 256Mi, limits: { cpu: 100m } }"), [
            "extra.yaml:7:57: error: spec.resources.limits.cpu (100m) is below the request spec.resources.cpu (250m)",
        ]),
        MalformedCase("a limit below the memory request", .extra(Template.service, "memory: 256Mi }", "memory: 256Mi, limits: { memory: 128Mi } }"), [
            "extra.yaml:7:60: error: spec.resources.limits.memory (128Mi) is below the request spec.resources.memory (256Mi)",
        ]),
        MalformedCase("a size given as 16Gi", .extra(Template.database, "memoryGiB: 8", #"memoryGiB: "16Gi""#), [
            #"extra.yaml:7:31: error: spec.size.memoryGiB is a plain number of GiB; write 16, not "16Gi""#,
        ]),
        MalformedCase("a size of zero vCPU", .extra(Template.database, "vcpu: 2", "vcpu: 0"), [
            "extra.yaml:7:17: error: spec.size.vcpu must be more than 0",
        ]),
        MalformedCase("a replica count of zero", .extra(Template.service, "replicas: 2", "replicas: 0"), [
            "extra.yaml:6:13: error: spec.replicas must be at least 1, found 0",
        ]),
        MalformedCase("negative standbys", .extra(Template.database, adding: "  standbys: -1\n"), [
            "extra.yaml:11:13: error: spec.standbys must not be negative, found -1",
        ]),
        MalformedCase("more than 8 standbys", .extra(Template.database, adding: "  standbys: 9\n"), [
            "extra.yaml:11:13: error: spec.standbys must be at most 8, found 9",
        ]),
        MalformedCase("retentionDays of zero", .extra(Template.database, "retentionDays: 7", "retentionDays: 0"), [
            "extra.yaml:10:20: error: spec.backup.retentionDays must be at least 1, found 0",
        ]),
        MalformedCase("a cache ttl over a year", .app("ttlSeconds: 86400", "ttlSeconds: 31536001"), [
            "app.yaml:54:44: error: spec.cache[0].ttlSeconds must be at most 31536000, found 31536001",
        ]),
    ]

    // MARK: Unknown keys and words

    static let unknownKeys: [MalformedCase] = [
        MalformedCase("replica instead of replicas", .extra(Template.service, "replicas: 2", "replica: 2"), [
            #"extra.yaml:5:3: error: spec: missing required key "replicas""#,
            #"extra.yaml:6:3: error: spec: unknown key "replica"; did you mean "replicas"?"#,
        ]),
        MalformedCase("dependOn instead of dependsOn", .extra(Template.service, adding: "  dependOn: [{ name: accounts-db }]\n"), [
            #"extra.yaml:9:3: error: spec: unknown key "dependOn"; did you mean "dependsOn"?"#,
        ]),
        MalformedCase("specs instead of spec", .extra(Template.service, "spec:", "specs:"), [
            #"extra.yaml:1:1: error: manifest: missing required key "spec""#,
            #"extra.yaml:4:1: error: manifest: unknown key "specs"; did you mean "spec"?"#,
        ]),
        MalformedCase("a misspelt kind gets a suggestion", .extra(Template.service, "kind: Service", "kind: Servce"), [
            #"extra.yaml:2:7: error: kind "Servce" is not a kind mcloud knows; did you mean "Service"?"#,
        ]),
        MalformedCase("a kind in lower case gets a suggestion", .extra(Template.service, "kind: Service", "kind: service"), [
            #"extra.yaml:2:7: error: kind "service" is not a kind mcloud knows; did you mean "Service"?"#,
        ]),
        MalformedCase("an unknown kind lists the kinds", .extra(Template.service, "kind: Service", "kind: Deployment"), [
            #"extra.yaml:2:7: error: kind "Deployment" is not a kind mcloud knows (kinds: Application, CDN, Cloud, Database, Policy, Service)"#,
        ]),
        MalformedCase("apiVersion of another version", .app("apiVersion: mcloud/v1\nkind: Application", "apiVersion: mcloud/v2\nkind: Application"), [
            #"app.yaml:1:13: error: apiVersion "mcloud/v2" is not supported; use mcloud/v1"#,
        ]),
        MalformedCase("a Kubernetes apiVersion", .extra(Template.service, "apiVersion: mcloud/v1", "apiVersion: apps/v1"), [
            #"extra.yaml:1:13: error: apiVersion "apps/v1" is not supported; use mcloud/v1"#,
        ]),
        MalformedCase("a misspelt scope gets a suggestion", .extra(Template.service, adding: "  scope: peraudience\n"), [
            #"extra.yaml:9:10: error: spec.scope: "peraudience" is not allowed; did you mean "perAudience"?"#,
        ]),
        MalformedCase("a misspelt api gets a suggestion", .extra(Template.cloud, "api: openstack", "api: openstak"), [
            #"extra.yaml:6:8: error: spec.api: "openstak" is not allowed; did you mean "openstack"?"#,
        ]),
        MalformedCase("a port protocol in lower case gets a suggestion", .extra(Template.service, "port: 8080 }", "port: 8080, protocol: tcp }"), [
            #"extra.yaml:8:47: error: spec.ports[0].protocol: "tcp" is not allowed; did you mean "TCP"?"#,
        ]),
        MalformedCase("an unknown portability", .app("portability: strict", "portability: loose"), [
            #"app.yaml:14:16: error: spec.portability: "loose" is not allowed (one of: strict, any)"#,
        ]),
    ]

    // MARK: References between documents

    // MARK: Data classes

    static let dataClasses: [MalformedCase] = [
        MalformedCase("a misspelt data class fails at its position with a suggestion", .app("data: [personal]\n  dependsOn", "data: [personnal]\n  dependsOn"), [
            #"app.yaml:25:10: error: spec.data[0]: no data class named "personnal" is declared; did you mean "personal"?"#,
            #"app.yaml:27:15: warning: spec.dependsOn[0].name: "accounts-db" stores personal data under a residency rule, but this service does not list it in spec.data, so its replicas are not held to that rule"#,
        ]),
        MalformedCase("a manifest that declares no data classes gets one warning saying what to add", .extra(Template.service, adding: "  data: [telemetry, audit]\n"), [
            #"app.yaml:5:3: warning: spec: workloads use data classes that Application "retail-bank" does not declare (audit, telemetry), which are treated as unrestricted; add unrestrictedData: [audit, telemetry] to its spec, or a residency rule for each class a law binds"#,
        ]),
        MalformedCase("an undeclared data class beside unrestrictedData says where to declare it", .app("portability: strict", "portability: strict\n  unrestrictedData: [telemetry]") + .extra(Template.service, adding: "  data: [audit]\n"), [
            #"extra.yaml:9:10: error: spec.data[0]: no data class named "audit" is declared; declare it in spec.unrestrictedData or a spec.residency rule of Application "retail-bank" (app.yaml:3:19)"#,
        ]),
        MalformedCase("a data class both governed and unrestricted", .app("portability: strict", "portability: strict\n  unrestrictedData: [personal]"), [
            #"app.yaml:15:22: error: spec.unrestrictedData[0]: "personal" is governed by spec.residency[0]; a data class is either under residency rules or unrestricted, not both"#,
        ]),
        MalformedCase("a service with governed data that depends on a database listing none", .app("data: [personal]\n  standbys", "data: []\n  standbys"), [
            #"app.yaml:25:10: warning: spec.data[0]: "payments-api" holds personal data under a residency rule and depends on "accounts-db", which does not list it in spec.data, so that database is not held to the rule"#,
        ]),
        MalformedCase("a service's data under unrestrictedData is accepted", .app("portability: strict", "portability: strict\n  unrestrictedData: [telemetry]") + .extra(Template.service, adding: "  data: [telemetry]\n"), []),
    ]

    // MARK: Numeric traps

    // MARK: Hosting and the DR leg's restore

    static let hosting: [MalformedCase] = [
        MalformedCase("a misspelt hosting", [.replace(in: "app.yaml", "  data: [personal]\n  standbys: 1", with: "  data: [personal]\n  standbys: 1\n  hosting: managd")], [
            #"app.yaml:42:12: error: spec.hosting: "managd" is not allowed; did you mean "managed"?"#,
        ]),
        MalformedCase("a misspelt restore", [.replace(in: "app.yaml", "changeGiBDay: 20 }", with: "changeGiBDay: 20, restore: manul }")], [
            #"app.yaml:45:75: error: spec.backup.disasterRecovery.restore: "manul" is not allowed; did you mean "manual"?"#,
        ]),
        MalformedCase("a residency tag no cloud has, under a rule cells fall under", [.replace(in: "app.yaml", "audience: eu, allowed: [EU]", with: "audience: eu, allowed: [EU, UZ]")], [
            #"app.yaml:12:53: warning: spec.residency[1].allowed[1]: no cloud in the catalog has the jurisdiction tag "UZ", so it admits none of the cells under this rule (payments-api@eu, accounts-db@eu)"#,
        ]),
        MalformedCase("a residency tag no cloud has, under a rule no cell falls under", [
            .replace(in: "app.yaml", "allowed: [EU], law: GDPR }", with: "allowed: [EU], law: GDPR }\n    - { data: health, audience: eu, allowed: [UZ] }"),
        ], []),
        MalformedCase("a managed primary whose DR leg failover is to restore", [
            .replace(in: "app.yaml", "  data: [personal]\n  standbys: 1", with: "  data: [personal]\n  standbys: 1\n  hosting: managed"),
        ], [
            "app.yaml:46:5: error: spec.backup.disasterRecovery: failover cannot restore a managed engine (hosting: managed) from its DR leg; set hosting: vm, or disasterRecovery.restore: manual to restore it by hand",
        ]),
    ]

    static let numericTraps: [MalformedCase] = [
        MalformedCase("memory without a unit is bytes", .extra(Template.service, "memory: 256Mi", "memory: 256"), [
            "extra.yaml:7:35: error: spec.resources.memory: 256 is 256 bytes, too little for any container; write 256Mi for mebibytes",
        ]),
        MalformedCase("minClouds above replicas", .extra(Template.service, "replicas: 2", "replicas: 1\n  availability: { maxShare: 1 }"), [
            #"extra.yaml:6:13: error: spec.replicas: 1 replica cannot run on minClouds 2 clouds (spec.availability.minClouds of Application "retail-bank" at app.yaml:13:30); raise replicas to 2 or lower minClouds"#,
        ]),
        MalformedCase("maxShare of replicas rounding down to none", .extra(Template.service, adding: "  availability: { minClouds: 1, maxShare: 0.3 }\n"), [
            "extra.yaml:6:13: error: spec.replicas: maxShare 0.3 of 2 replicas rounds down to 0 per cloud (spec.availability.maxShare at extra.yaml:9:43), so no cloud may run one; raise replicas or maxShare",
        ]),
    ]

    // MARK: Latency between clouds and dependents

    static let locality: [MalformedCase] = [
        MalformedCase("a latency to a cloud the catalog lacks", .clouds("latencyMs: { ru: 12, eu: 55 }", "latencyMs: { ru: 12, eu: 55 }\n  cloudLatencyMs: { aws-fro: 40 }"), [
            #"clouds.yaml:26:30: error: spec.cloudLatencyMs: no Cloud named "aws-fro"; did you mean "aws-fra"?"#,
        ]),
        MalformedCase("a negative latency between clouds", .clouds("latencyMs: { ru: 12, eu: 55 }", "latencyMs: { ru: 12, eu: 55 }\n  cloudLatencyMs: { aws-fra: -4 }"), [
            "clouds.yaml:26:30: error: spec.cloudLatencyMs.aws-fra must not be negative, found -4",
        ]),
        MalformedCase("a latency from a cloud to itself", .clouds("latencyMs: { ru: 12, eu: 55 }", "latencyMs: { ru: 12, eu: 55 }\n  cloudLatencyMs: { vk-msk: 1 }"), [
            #"clouds.yaml:26:21: error: spec.cloudLatencyMs: "vk-msk" is this cloud; its latency to itself is 0"#,
        ]),
        MalformedCase("a latency key that is no cloud name", .clouds("latencyMs: { ru: 12, eu: 55 }", "latencyMs: { ru: 12, eu: 55 }\n  cloudLatencyMs: { AWS_FRA: 40 }"), [
            #"clouds.yaml:26:21: error: spec.cloudLatencyMs: "AWS_FRA" is not a cloud name: use only lower-case letters, digits and '-'"#,
        ]),
        MalformedCase("one pair of clouds given two latencies", [
            .replace(in: "clouds.yaml", "latencyMs: { ru: 12, eu: 55 }", with: "latencyMs: { ru: 12, eu: 55 }\n  cloudLatencyMs: { aws-fra: 40 }"),
            .replace(in: "clouds.yaml", "latencyMs: { ru: 50, eu: 10 }", with: "latencyMs: { ru: 50, eu: 10 }\n  cloudLatencyMs: { vk-msk: 45 }"),
        ], [
            #"clouds.yaml:43:29: error: spec.cloudLatencyMs.vk-msk: 45 ms, but Cloud "vk-msk" gives 40 ms to "aws-fra" at clouds.yaml:26:30; a pair has one latency, give it on one side"#,
        ]),
        MalformedCase("a maxLatencyMs of zero", .app("{ name: accounts-db, trafficGiBMonth: 200 }", "{ name: accounts-db, trafficGiBMonth: 200, maxLatencyMs: 0 }"), [
            "app.yaml:27:64: error: spec.dependsOn[0].maxLatencyMs must be more than 0",
        ]),
        MalformedCase("a maxLatencyMs that is a word", .app("{ name: accounts-db, trafficGiBMonth: 200 }", "{ name: accounts-db, trafficGiBMonth: 200, maxLatencyMs: near }"), [
            "app.yaml:27:64: error: spec.dependsOn[0].maxLatencyMs must be a number, found a string (near)",
        ]),
    ]

    // MARK: YAML hints

    static let yamlHints: [MalformedCase] = [
        MalformedCase("an unquoted @daily is told to be quoted", .extra(Template.database, #"schedule: "0 3 * * *""#, "schedule: @daily"), [
            #"extra.yaml:9:15: error: found character that cannot start any token (while scanning for the next token); YAML reserves @ at the start of a value, so quote it: "@daily""#,
        ]),
        MalformedCase("a key indented too deep", .extra(Template.service, "  replicas: 2", "   replicas: 2"), [
            #"extra.yaml:6:12: error: mapping values are not allowed in this context; a key is indented deeper than the keys beside it, or a value holding ": " needs quotes"#,
        ]),
        MalformedCase("a key indented too little", .extra(Template.service, "  replicas: 2", " replicas: 2"), [
            "extra.yaml:6:2: error: did not find expected key (while parsing a block mapping); the keys of one mapping must start in the same column",
        ]),
        MalformedCase("names after a YAML error are not reported missing", .extra(Template.service + "---\n" + Template.database, "  replicas: 2", "   replicas: 2") + .app("name: accounts-db, trafficGiBMonth", "name: ledger-db, trafficGiBMonth"), [
            #"extra.yaml:6:12: error: mapping values are not allowed in this context; a key is indented deeper than the keys beside it, or a value holding ": " needs quotes"#,
        ]),
    ]

    static let references: [MalformedCase] = [
        MalformedCase("dependsOn an unknown name gets a suggestion", .app("name: accounts-db, trafficGiBMonth", "name: acounts-db, trafficGiBMonth"), [
            #"app.yaml:27:15: error: spec.dependsOn[0].name: no Service or Database named "acounts-db"; did you mean "accounts-db"?"#,
        ]),
        MalformedCase("dependsOn an unknown name with nothing close", .app("name: accounts-db, trafficGiBMonth", "name: ledger, trafficGiBMonth"), [
            #"app.yaml:27:15: error: spec.dependsOn[0].name: no Service or Database named "ledger""#,
        ]),
        MalformedCase("dependsOn itself", .app("name: accounts-db, trafficGiBMonth", "name: payments-api, trafficGiBMonth"), [
            "app.yaml:27:15: error: spec.dependsOn[0].name: a service cannot depend on itself",
        ]),
        MalformedCase("dependsOn a CDN", .app("name: accounts-db, trafficGiBMonth", "name: static, trafficGiBMonth"), [
            #"app.yaml:27:15: error: spec.dependsOn[0].name: "static" is a CDN; dependsOn names Services and Databases"#,
        ]),
        MalformedCase("dependsOn the same name twice", .extra(Template.service, adding: "  dependsOn: [{ name: accounts-db }, { name: accounts-db }]\n"), [
            #"extra.yaml:9:46: error: spec.dependsOn[1].name: "accounts-db" is already listed at extra.yaml:9:23"#,
        ]),
        MalformedCase("a CDN origin that is unknown gets a suggestion", .app("origins: [payments-api]", "origins: [payment-api]"), [
            #"app.yaml:51:13: error: spec.origins[0]: no Service named "payment-api"; did you mean "payments-api"?"#,
        ]),
        MalformedCase("a CDN origin that is not public", .app("public: true", "public: false"), [
            #"app.yaml:51:13: error: spec.origins[0]: Service "payments-api" is not public; set expose.public: true on it (app.yaml:18:19) to put a CDN in front of it"#,
        ]),
        MalformedCase("a CDN origin that is a Database", .app("origins: [payments-api]", "origins: [accounts-db]"), [
            #"app.yaml:51:13: error: spec.origins[0]: no Service named "accounts-db"; it is a Database, and a CDN fronts public Services"#,
        ]),
        MalformedCase("a CDN audience that is unknown", .app("audiences: [ru, eu]", "audiences: [ru, kz]"), [
            #"app.yaml:52:19: error: spec.audiences[1]: no audience named "kz""#,
        ]),
        MalformedCase("a residency rule naming an unknown audience", .app("audience: eu, allowed: [EU]", "audience: ue, allowed: [EU]"), [
            #"app.yaml:12:35: error: spec.residency[1].audience: no audience named "ue"; did you mean "eu"?"#,
        ]),
        MalformedCase("a cloud currency with no exchange rate", .app("exchangeRates: { RUB: 0.011 }", "exchangeRates: { EUR: 1.08 }"), [
            #"clouds.yaml:18:15: error: spec.pricing.currency: RUB has no exchange rate; add it to spec.exchangeRates of Application "retail-bank" (app.yaml:3:19)"#,
        ]),
        MalformedCase("a non-portable engine under portability strict", .app("engine: postgresql", "engine: oracle"), [
            #"app.yaml:36:11: error: spec.engine: "oracle" is not portable, and Application "retail-bank" sets portability: strict; use one of clickhouse, mongodb, mysql, postgresql, redis"#,
        ]),
        MalformedCase("a data class listed twice", .app("  data: [personal]\n  dependsOn", "  data: [personal, personal]\n  dependsOn"), [
            "app.yaml:25:20: error: spec.data[1] repeats personal (first listed at app.yaml:25:10)",
        ]),
    ]

    // MARK: Documents: duplicates, counts

    static let documents: [MalformedCase] = [
        MalformedCase("two Clouds with one name", .clouds("metadata: { name: aws-fra }", "metadata: { name: vk-msk }"), [
            #"clouds.yaml:32:19: error: metadata.name: Cloud "vk-msk" is already defined at clouds.yaml:3:19"#,
        ]),
        MalformedCase("two Services with one name", .extra(Template.service, "name: worker }", "name: payments-api }"), [
            #"extra.yaml:3:19: error: metadata.name: Service "payments-api" is already defined at app.yaml:18:19"#,
        ]),
        MalformedCase("a Service with the name of a Database", .extra(Template.service, "name: worker }", "name: accounts-db }"), [
            #"extra.yaml:3:19: error: metadata.name: "accounts-db" is already the name of a Database at app.yaml:34:19; dependsOn could not tell them apart"#,
        ]),
        MalformedCase("two Applications", [.add("extra.yaml", Template.application)], [
            #"extra.yaml:3:19: error: metadata.name: a second Application "second-app"; a plan has exactly one, and "retail-bank" is defined at app.yaml:3:19; point -f at one application's folder"#,
        ]),
        MalformedCase("no Application", [.remove("app.yaml")], [
            "error: no Application manifest found; exactly one is required",
        ]),
        MalformedCase("no Cloud", [.remove("clouds.yaml")], [
            "error: no Cloud manifests found; pass --providers DIR pointing at the cloud catalog",
        ]),
        MalformedCase("a file that is empty", [.add("extra.yaml", "")], [
            "extra.yaml:1:1: error: the file holds no manifest",
        ]),
        MalformedCase("a file of only comments", [.add("extra.yaml", "# nothing here yet\n# still nothing\n")], [
            "extra.yaml:1:1: error: the file holds no manifest",
        ]),
        MalformedCase("a file of only a document marker", [.add("extra.yaml", "---\n")], [
            "extra.yaml:1:1: error: the file holds no manifest",
        ]),
        MalformedCase("a document that is a scalar", [.add("extra.yaml", "just some text\n")], [
            "extra.yaml:1:1: error: a manifest must be a mapping with apiVersion, kind, metadata and spec; found a string",
        ]),
        MalformedCase("a document that is a list", [.add("extra.yaml", "- apiVersion: mcloud/v1\n- kind: Service\n")], [
            "extra.yaml:1:1: error: a manifest must be a mapping with apiVersion, kind, metadata and spec; found a list",
        ]),
        MalformedCase("a second document that is a list", [.add("extra.yaml", Template.cdn + "---\n- one\n- two\n")], [
            "extra.yaml:8:1: error: a manifest must be a mapping with apiVersion, kind, metadata and spec; found a list",
        ]),
    ]

    // MARK: Value rules

    static let rules: [MalformedCase] = [
        MalformedCase("a missing price for kubernetes", .extra(Template.cloud, "    vcpuHour: 1.1\n", ""), [
            #"extra.yaml:12:5: error: spec.pricing: missing "vcpuHour"; the cloud offers kubernetes, so it must price it"#,
        ]),
        MalformedCase("a missing memory price for vm", .extra(Template.cloud, "kubernetes: true, vm: true", "vm: true") + [.replace(in: "extra.yaml", "    memoryGiBHour: 0.35\n", with: "")], [
            #"extra.yaml:12:5: error: spec.pricing: missing "memoryGiBHour"; the cloud offers vm, so it must price it"#,
        ]),
        MalformedCase("a missing storage price for vm", .extra(Template.cloud, "    storageGiBMonth: 7\n", ""), [
            #"extra.yaml:12:5: error: spec.pricing: missing "storageGiBMonth"; the cloud offers vm, so it must price it"#,
        ]),
        MalformedCase("a missing storage price for dbaas", .extra(Template.cloud, "{ kubernetes: true, vm: true, objectStorage: true }", "{ dbaas: [postgresql] }") + [.replace(in: "extra.yaml", "    storageGiBMonth: 7\n", with: "")], [
            #"extra.yaml:12:5: error: spec.pricing: missing "storageGiBMonth"; the cloud offers dbaas, so it must price it"#,
        ]),
        MalformedCase("a missing cpu price for dbaas", .extra(Template.cloud, "{ kubernetes: true, vm: true, objectStorage: true }", "{ dbaas: [postgresql] }") + [.replace(in: "extra.yaml", "    vcpuHour: 1.1\n", with: "")], [
            #"extra.yaml:12:5: error: spec.pricing: missing "vcpuHour"; the cloud offers dbaas, so it must price it"#,
        ]),
        MalformedCase("a missing price for objectStorage", .extra(Template.cloud, "    objectStorageGiBMonth: 1.8\n", ""), [
            #"extra.yaml:12:5: error: spec.pricing: missing "objectStorageGiBMonth"; the cloud offers objectStorage, so it must price it"#,
        ]),
        MalformedCase("a missing price for cdn", .extra(Template.cloud, "objectStorage: true }", "objectStorage: true, cdn: { pops: [RU] } }"), [
            #"extra.yaml:12:5: error: spec.pricing: missing "cdnGiB"; the cloud offers cdn, so it must price it"#,
        ]),
        MalformedCase("a missing egress price", .extra(Template.cloud, "    egressGiB: 1.2\n", ""), [
            #"extra.yaml:12:5: error: spec.pricing: missing required key "egressGiB""#,
        ]),
        MalformedCase("an application maxShare above 1", .app("maxShare: 0.67", "maxShare: 1.5"), [
            "app.yaml:13:43: error: spec.availability.maxShare must be at most 1 (a share of the replicas), found 1.5",
        ]),
        MalformedCase("an application minClouds of 0", .app("minClouds: 2", "minClouds: 0"), [
            "app.yaml:13:30: error: spec.availability.minClouds must be at least 1, found 0",
        ]),
        MalformedCase("a service maxShare above 1", .extra(Template.service, adding: "  availability: { maxShare: 1.5 }\n"), [
            "extra.yaml:9:29: error: spec.availability.maxShare must be at most 1 (a share of the replicas), found 1.5",
        ]),
        MalformedCase("a service maxShare of 0", .extra(Template.service, adding: "  availability: { maxShare: 0 }\n"), [
            "extra.yaml:9:29: error: spec.availability.maxShare must be more than 0",
        ]),
        MalformedCase("a service minClouds of 0", .extra(Template.service, adding: "  availability: { minClouds: 0 }\n"), [
            "extra.yaml:9:30: error: spec.availability.minClouds must be at least 1, found 0",
        ]),
        MalformedCase("autoscale min above max", .extra(Template.service, adding: "  autoscale: { min: 3, max: 1 }\n"), [
            "extra.yaml:9:29: error: spec.autoscale.max (1) is below spec.autoscale.min (3)",
        ]),
        MalformedCase("replicas below the autoscale range", .app("replicas: 4", "replicas: 2"), [
            "app.yaml:22:13: error: spec.replicas (2) must lie within spec.autoscale [4, 20]",
        ]),
        MalformedCase("replicas above the autoscale range", .app("replicas: 4", "replicas: 21"), [
            "app.yaml:22:13: error: spec.replicas (21) must lie within spec.autoscale [4, 20]",
        ]),
        MalformedCase("a cron schedule of 4 fields", .extra(Template.database, #""0 3 * * *""#, #""0 3 * *""#), [
            #"extra.yaml:9:15: error: spec.backup.schedule: "0 3 * *" is not a cron schedule: it has 4 fields; cron needs 5 (minute hour day-of-month month day-of-week)"#,
        ]),
        MalformedCase("a cron minute of 61", .extra(Template.database, #""0 3 * * *""#, #""61 3 * * *""#), [
            #"extra.yaml:9:15: error: spec.backup.schedule: "61 3 * * *" is not a cron schedule: the minute 61 is outside 0-59"#,
        ]),
        MalformedCase("a cron step of 0", .extra(Template.database, #""0 3 * * *""#, #""*/0 * * * *""#), [
            #"extra.yaml:9:15: error: spec.backup.schedule: "*/0 * * * *" is not a cron schedule: the minute step "0" must be a positive number"#,
        ]),
        MalformedCase("a cron step that is not a number", .extra(Template.database, #""0 3 * * *""#, #""0 */x * * *""#), [
            #"extra.yaml:9:15: error: spec.backup.schedule: "0 */x * * *" is not a cron schedule: the hour step "x" must be a positive number"#,
        ]),
        MalformedCase("a cron range that runs backwards", .extra(Template.database, #""0 3 * * *""#, #""0 3 * * FRI-MON""#), [
            #"extra.yaml:9:15: error: spec.backup.schedule: "0 3 * * FRI-MON" is not a cron schedule: the day of week range FRI-MON runs backwards"#,
        ]),
        MalformedCase("an unknown cron shorthand", .extra(Template.database, #""0 3 * * *""#, "\"@reboot\""), [
            #"extra.yaml:9:15: error: spec.backup.schedule: "@reboot" is not a cron schedule: unknown shorthand @reboot (use @hourly, @daily, @weekly, @monthly or @yearly)"#,
        ]),
        MalformedCase("a probe naming an unknown port", .extra(Template.service, adding: "  probes: { readiness: { path: /healthz, port: htp } }\n"), [
            #"extra.yaml:9:48: error: spec.probes.readiness.port: no port named "htp" in spec.ports; did you mean "http"?"#,
        ]),
        MalformedCase("a probe naming an unknown port number", .extra(Template.service, adding: "  probes: { liveness: { path: /livez, port: 9090 } }\n"), [
            "extra.yaml:9:45: error: spec.probes.liveness.port: 9090 is not one of spec.ports",
        ]),
        MalformedCase("two ports with one name", .extra(Template.service, "[{ name: http, port: 8080 }]", "[{ name: http, port: 8080 }, { name: http, port: 8081 }]"), [
            #"extra.yaml:8:47: error: spec.ports[1].name: port name "http" is already used at extra.yaml:8:19"#,
        ]),
        MalformedCase("two ports with one number", .extra(Template.service, "[{ name: http, port: 8080 }]", "[{ name: http, port: 8080 }, { name: admin, port: 8080 }]"), [
            "extra.yaml:8:60: error: spec.ports[1].port: port 8080/TCP is already used at extra.yaml:8:31",
        ]),
        MalformedCase("one port number on TCP and UDP is accepted", .extra(Template.service, "[{ name: http, port: 8080 }]", "[{ name: http, port: 8080 }, { name: quic, port: 8080, protocol: UDP }]"), []),
        MalformedCase("an expose path without a slash", .extra(Template.service, adding: "  expose: { public: true, path: api }\n"), [
            #"extra.yaml:9:33: error: spec.expose.path: "api" is not a URL path; it must start with / and hold no spaces"#,
        ]),
        MalformedCase("an image with a space", .extra(Template.service, "image: registry.example/worker:1.0.0", "image: registry.example/worker 1.0.0"), [
            #"extra.yaml:5:10: error: spec.image: "registry.example/worker 1.0.0" is not a container image reference such as registry.example/app:1.2.3"#,
        ]),
        MalformedCase("a CDN endpoint that is not a URL", .clouds("kubernetes: { context: vk-msk-prod }", "kubernetes: { context: vk-msk-prod }\n    cdn: { url: \"ftp://cdn.example\", tokenEnv: VK-TOKEN }"), [
            #"clouds.yaml:29:17: error: spec.endpoints.cdn.url: "ftp://cdn.example" is not an http:// or https:// URL"#,
            #"clouds.yaml:29:48: error: spec.endpoints.cdn.tokenEnv: "VK-TOKEN" is not an environment variable name (letters, digits and '_', not starting with a digit)"#,
        ]),
        MalformedCase("egress ranges that are not address ranges", .clouds("kubernetes: { context: vk-msk-prod }", "kubernetes: { context: vk-msk-prod, egressCIDRs: [10.0.0.0/8, 10.0.0.256/24, \"2001:db8::/129\", 2001:db8::/48] }"), [
            #"clouds.yaml:28:67: error: spec.endpoints.kubernetes.egressCIDRs[1]: "10.0.0.256/24" is not an address range such as 203.0.113.0/24 or 2001:db8::/32"#,
            #"clouds.yaml:28:82: error: spec.endpoints.kubernetes.egressCIDRs[2]: "2001:db8::/129" is not an address range such as 203.0.113.0/24 or 2001:db8::/32"#,
        ]),
        // Regression: /0 opened a database port to the world, and host bits opened more than the address written.
        MalformedCase("egress ranges that are every address or have host bits", .clouds("kubernetes: { context: vk-msk-prod }", "kubernetes: { context: vk-msk-prod, egressCIDRs: [0.0.0.0/0, 10.0.0.1/8, \"::/0\", \"2001:db8::1/32\", 10.1.0.0/16] }"), [
            #"clouds.yaml:28:55: error: spec.endpoints.kubernetes.egressCIDRs[0]: "0.0.0.0/0" is every address; name the ranges the cluster's traffic leaves from, such as its NAT's 203.0.113.7/32"#,
            #"clouds.yaml:28:66: error: spec.endpoints.kubernetes.egressCIDRs[1]: "10.0.0.1/8" has bits set past its /8 prefix; the range it stands for is 10.0.0.0/8"#,
            #"clouds.yaml:28:78: error: spec.endpoints.kubernetes.egressCIDRs[2]: "::/0" is every address; name the ranges the cluster's traffic leaves from, such as its NAT's 203.0.113.7/32"#,
            #"clouds.yaml:28:86: error: spec.endpoints.kubernetes.egressCIDRs[3]: "2001:db8::1/32" has bits set past its /32 prefix; the range it stands for is 2001:db8::/32"#,
        ]),
        MalformedCase("a cluster set that is no name", .clouds("kubernetes: { context: vk-msk-prod }", "kubernetes: { context: vk-msk-prod, clusterSet: Mesh_1 }"), [
            #"clouds.yaml:28:53: error: spec.endpoints.kubernetes.clusterSet: "Mesh_1" is not a valid name: use only lower-case letters, digits and '-'"#,
        ]),
        MalformedCase("a cluster's age recipient that is not one", .clouds("kubernetes: { context: vk-msk-prod }", "kubernetes: { context: vk-msk-prod, ageRecipient: age1qqqq }"), [
            #"clouds.yaml:28:55: error: spec.endpoints.kubernetes.ageRecipient: "age1qqqq" is not an age recipient: expected age1 and 58 lowercase bech32 characters, as age-keygen prints it"#,
        ]),
        MalformedCase("GitOps names of a cluster that Argo CD and Flux cannot use", .clouds("kubernetes: { context: vk-msk-prod }", "kubernetes: { context: vk-msk-prod, server: \"ftp://k8s\", fluxKubeConfigSecret: Kube_Config, fluxKubeConfigKey: \"a/b\" }"), [
            #"clouds.yaml:28:49: error: spec.endpoints.kubernetes.server: "ftp://k8s" is not an http:// or https:// URL"#,
            #"clouds.yaml:28:84: error: spec.endpoints.kubernetes.fluxKubeConfigSecret: "Kube_Config" is not a Secret name: use lower-case letters, digits, '-' and '.', at most 253 characters"#,
            #"clouds.yaml:28:116: error: spec.endpoints.kubernetes.fluxKubeConfigKey: "a/b" is not a key of a Secret: use letters, digits, '-', '_' and '.'"#,
        ]),
        MalformedCase("an Argo CD destination by server and by name at once", .clouds("kubernetes: { context: vk-msk-prod }", "kubernetes: { context: vk-msk-prod, server: \"https://10.0.0.1:6443\", argocdCluster: vk }"), [
            "clouds.yaml:28:49: error: spec.endpoints.kubernetes.server: set server or argocdCluster, not both; an Argo CD destination names its cluster by one of them",
        ]),
        MalformedCase("GitOps names of a cluster are accepted", .clouds("kubernetes: { context: vk-msk-prod }", "kubernetes: { context: vk-msk-prod, argocdCluster: in-cluster, fluxKubeConfigSecret: vk.kubeconfig, fluxKubeConfigKey: value.yaml }"), []),
        // Regression (issue 32, H2): a VM's backup keys came from mcloud's own identity; a catalog may no longer name it.
        MalformedCase("a backup profile that is an identity mcloud works with", .clouds(
            "    kubernetes: { context: vk-msk-prod }\n",
            "    kubernetes: { context: vk-msk-prod }\n    objectStorage: { url: \"https://hb.example\", backupProfile: mcloud }\n"
        ) + .clouds(
            "  latencyMs: { ru: 50, eu: 10 }",
            "  latencyMs: { ru: 50, eu: 10 }\n  endpoints:\n    aws: { profile: mcloud }\n    objectStorage: { url: \"https://s3.example\", backupProfile: vk-msk }"
        ), [
            #"clouds.yaml:29:64: error: spec.endpoints.objectStorage.backupProfile: "mcloud" is the profile mcloud deploys aws-fra with (its endpoints.aws.profile); a backup identity is a profile of its own, whose keys reach the backup buckets only, since they go into every database VM's user data"#,
            #"clouds.yaml:45:64: error: spec.endpoints.objectStorage.backupProfile: "vk-msk" is the profile mcloud manages vk-msk's buckets with (named after the cloud); a backup identity is a profile of its own, whose keys reach the backup buckets only, since they go into every database VM's user data"#,
        ]),
        MalformedCase("a backup profile that is no section name of the AWS files", .clouds(
            "    kubernetes: { context: vk-msk-prod }\n",
            "    kubernetes: { context: vk-msk-prod }\n    objectStorage: { url: \"https://hb.example\", backupProfile: \"dr]\" }\n"
        ), [
            #"clouds.yaml:29:64: error: spec.endpoints.objectStorage.backupProfile: "dr]" is not an AWS profile name (a section of the AWS config files: no brackets, line breaks or surrounding spaces)"#,
        ]),
        // Regression (issue 32, H3): the catalog could send the backups over plain http to any host.
        MalformedCase("an object storage URL in clear text off this machine", .clouds(
            "    kubernetes: { context: vk-msk-prod }\n",
            "    kubernetes: { context: vk-msk-prod }\n    objectStorage: { url: \"http://hb.example\", backupProfile: vk-msk-backup }\n"
        ), [
            #"clouds.yaml:29:27: error: spec.endpoints.objectStorage.url: "http://hb.example" would carry the backups and the requests signed with their keys in clear text: use https:// (plain http only to a loopback address)"#,
        ]),
        MalformedCase("an object storage URL in clear text to a loopback bed is accepted", .clouds(
            "    kubernetes: { context: vk-msk-prod }\n",
            "    kubernetes: { context: vk-msk-prod }\n    objectStorage: { url: \"http://127.0.0.1:24566\", backupProfile: vk-msk-backup }\n"
        ), []),
        MalformedCase("a backup profile of its own is accepted", .clouds(
            "    kubernetes: { context: vk-msk-prod }\n",
            "    kubernetes: { context: vk-msk-prod }\n    objectStorage: { url: \"https://hb.example\", backupProfile: vk-msk-backup }\n"
        ), []),
        MalformedCase("an encrypted volume type on AWS, which encrypts every volume already", .clouds(
            "  latencyMs: { ru: 50, eu: 10 }", "  latencyMs: { ru: 50, eu: 10 }\n  vm: { encryptedVolumeType: luks }"
        ), [
            "clouds.yaml:42:30: error: spec.vm.encryptedVolumeType: names a Cinder volume type, which only an OpenStack cloud has; an AWS cloud encrypts every EBS volume already",
        ]),
        MalformedCase("an encrypted volume type on OpenStack, without an image", .clouds(
            "  latencyMs: { ru: 12, eu: 55 }", "  latencyMs: { ru: 12, eu: 55 }\n  vm: { encryptedVolumeType: luks-ssd }"
        ), []),
        MalformedCase("an empty list of CDN audiences", .app("audiences: [ru, eu]", "audiences: []"), [
            "app.yaml:52:14: error: spec.audiences must not be empty",
        ]),
        MalformedCase("two cache rules for one path", .app(#"cache: [{ path: "/static/*", ttlSeconds: 86400 }]"#, #"cache: [{ path: "/static/*", ttlSeconds: 86400 }, { path: "/static/*", ttlSeconds: 60 }]"#), [
            #"app.yaml:54:61: error: spec.cache[1].path: a rule for "/static/*" is already defined at app.yaml:54:19"#,
        ]),
        MalformedCase("a misspelt latency key is a warning", .clouds("latencyMs: { ru: 12, eu: 55 }", "latencyMs: { ru: 12, ue: 55 }"), [
            #"clouds.yaml:25:28: warning: spec.latencyMs: "ue" is no audience of Application "retail-bank"; did you mean "eu"? Without an entry for "eu", public services serving it cannot use this cloud"#,
        ]),
        MalformedCase("a service reading governed data it does not declare is a warning", .app("  data: [personal]\n  dependsOn", "  data: []\n  dependsOn"), [
            #"app.yaml:27:15: warning: spec.dependsOn[0].name: "accounts-db" stores personal data under a residency rule, but this service does not list it in spec.data, so its replicas are not held to that rule"#,
        ]),
    ]

    // MARK: YAML that is hostile, broken or not text

    static let yaml: [MalformedCase] = [
        MalformedCase("an alias bomb of 9 levels of 10", [.add("extra.yaml", billionLaughs)], [
            "extra.yaml:9:47: error: document expands to more than 100000 nodes through aliases; refusing it (an alias bomb?)",
        ]),
        MalformedCase("an alias to no anchor", .extra(Template.service, "replicas: 2", "replicas: *count"), [
            "extra.yaml:6:13: error: alias *count refers to no anchor &count defined before it",
        ]),
        MalformedCase("an alias used for numbers is accepted", .extra(Template.service, "replicas: 2", "replicas: &count 2\n  autoscale: { min: *count, max: *count }"), []),
        MalformedCase("a duplicate key names both positions", .extra(Template.service, "replicas: 2", "replicas: 2\n  replicas: 3"), [
            #"extra.yaml:7:3: error: duplicate key "replicas"; it was first defined at extra.yaml:6:3"#,
        ]),
        MalformedCase("a duplicate key in a flow mapping", .app("{ name: payments-api }", "{ name: payments-api, name: payments-api }"), [
            #"app.yaml:18:33: error: duplicate key "name"; it was first defined at app.yaml:18:13"#,
        ]),
        MalformedCase("a tab used for indentation", .extra(Template.service, "  replicas: 2", "\treplicas: 2"), [
            "extra.yaml:6:1: error: found a tab character that violates indentation (while scanning a plain scalar); YAML does not allow tabs for indentation, use spaces",
        ]),
        MalformedCase("a file cut inside a quoted string", .extra(Template.service, "image: registry.example/worker:1.0.0", "image: \"registry.example/worker:1.0.0\"") + [.truncate("extra.yaml", after: "\"registry.example/wor")], [
            "extra.yaml:5:31: error: found unexpected end of stream (while scanning a quoted scalar)",
        ]),
        MalformedCase("a file cut inside a flow mapping", [.add("extra.yaml", Template.service), .truncate("extra.yaml", after: "resources: { cpu: 250m, mem")], [
            "extra.yaml:8:1: error: did not find expected ',' or '}' (while parsing a flow mapping)",
        ]),
        MalformedCase("a file cut in its last document", [.truncate("app.yaml", after: "kind: CDN\nmetadata: { na")], [
            "app.yaml:50:1: error: did not find expected ',' or '}' (while parsing a flow mapping)",
        ]),
        MalformedCase("a YAML error stops the rest of its file", [.add("extra.yaml", "apiVersion: [mcloud/v1\n---\n" + Template.cdn.replacingOccurrences(of: "origins: [payments-api]", with: "origins: [nowhere]"))], [
            #"extra.yaml:2:1: error: did not find expected ',' or ']' (while parsing a flow sequence)"#,
        ]),
        MalformedCase("bytes that are not UTF-8", [.addBytes("extra.yaml", Array("apiVersion: mcloud/v1\nkind: Ser".utf8) + [0xFF, 0xFE] + Array("vice\n".utf8))], [
            "extra.yaml:2:10: error: invalid leading UTF-8 octet: the file is not UTF-8 YAML text",
        ]),
        MalformedCase("a NUL byte", [.addBytes("extra.yaml", Array("apiVersion: mcloud/v1\nkind: Service\nmeta".utf8) + [0x00] + Array("data: { name: worker }\n".utf8))], [
            "extra.yaml:3:5: error: control characters are not allowed: the file is not UTF-8 YAML text",
        ]),
        MalformedCase("binary garbage", [.addBytes("extra.yaml", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52])], [
            "extra.yaml:1:1: error: invalid leading UTF-8 octet: the file is not UTF-8 YAML text",
        ]),
        MalformedCase("300 nested lists", .extra(Template.service, "replicas: 2", "replicas: " + String(repeating: "[", count: 300) + String(repeating: "]", count: 300)), [
            "extra.yaml:6:211: error: collections nest deeper than 200 levels",
        ]),
        MalformedCase("300 unclosed nested lists", [.add("extra.yaml", String(repeating: "[", count: 300) + "\n")], [
            "extra.yaml:1:201: error: collections nest deeper than 200 levels",
        ]),
        MalformedCase("a byte order mark is accepted", [.prefix("app.yaml", [0xEF, 0xBB, 0xBF])], []),
        MalformedCase("a byte order mark leaves the first line's columns unchanged", [.prefix("app.yaml", [0xEF, 0xBB, 0xBF])] + .app("apiVersion: mcloud/v1\nkind: Application", "apiVersion: mcloud/v2\nkind: Application"), [
            #"app.yaml:1:13: error: apiVersion "mcloud/v2" is not supported; use mcloud/v1"#,
        ]),
        MalformedCase("a byte order mark leaves later positions unchanged", [.prefix("app.yaml", [0xEF, 0xBB, 0xBF])] + .app("replicas: 4", "replicas: 2"), [
            "app.yaml:22:13: error: spec.replicas (2) must lie within spec.autoscale [4, 20]",
        ]),
        MalformedCase("an empty document in the middle is accepted", .app("---\napiVersion: mcloud/v1\nkind: Database", "---\n---\napiVersion: mcloud/v1\nkind: Database"), []),
        MalformedCase("a document of only a comment in the middle is accepted", .app("---\napiVersion: mcloud/v1\nkind: Database", "---\n# the database comes next\n---\napiVersion: mcloud/v1\nkind: Database"), []),
        MalformedCase("CR LF line endings are accepted", [.crlf("app.yaml"), .crlf("clouds.yaml")], []),
    ]

    /// The classic "billion laughs": nine levels, each listing the one before ten times.
    static let billionLaughs: String = {
        var lines = ["apiVersion: mcloud/v1", "kind: Service", "metadata: { name: laughs }", "spec:"]
        lines.append("  l0: &l0 [" + Array(repeating: "lol", count: 10).joined(separator: ", ") + "]")
        for level in 1..<9 {
            lines.append("  l\(level): &l\(level) [" + Array(repeating: "*l\(level - 1)", count: 10).joined(separator: ", ") + "]")
        }
        return lines.joined(separator: "\n") + "\n"
    }()
}

// MARK: - Known bugs

/// Inputs whose diagnostics were once wrong or misleading: each test is the one that would have caught the bug.
@Suite struct MalformedManifestRegressionTests {
    @Test(arguments: MalformedCase.droppedDocuments)
    func invalidDocumentIsNotReportedAgainAsMissing(_ input: MalformedCase) throws {
        try MalformedManifestTests().reportsEveryProblemWithItsPosition(input)
    }

    @Test(arguments: MalformedCase.invalidApplication)
    func invalidApplicationDoesNotHideOtherProblems(_ input: MalformedCase) throws {
        try MalformedManifestTests().reportsEveryProblemWithItsPosition(input)
    }

    @Test(arguments: MalformedCase.invalidExchangeRate)
    func invalidExchangeRateIsNotReportedAgainAsMissing(_ input: MalformedCase) throws {
        try MalformedManifestTests().reportsEveryProblemWithItsPosition(input)
    }

    @Test(arguments: MalformedCase.cdnShadowsDatabase)
    func databaseDependencyIsNotTakenForACDN(_ input: MalformedCase) throws {
        try MalformedManifestTests().reportsEveryProblemWithItsPosition(input)
    }

    @Test(arguments: MalformedCase.tabHint)
    func tabHintSurvivesNonASCIIText(_ input: MalformedCase) throws {
        try MalformedManifestTests().reportsEveryProblemWithItsPosition(input)
    }

    @Test(arguments: MalformedCase.poorAdvice)
    func messagesGiveAdviceThatFits(_ input: MalformedCase) throws {
        try MalformedManifestTests().reportsEveryProblemWithItsPosition(input)
    }
}

extension MalformedCase {
    static let droppedDocuments: [MalformedCase] = [
        MalformedCase("an invalid Service is not also reported as an unknown CDN origin", .app("replicas: 4", "replicas: four"), [
            "app.yaml:22:13: error: spec.replicas must be an integer, found a string (four)",
        ]),
        MalformedCase("a Service listing a dependency twice is not also reported as an unknown CDN origin", .app("    - { name: accounts-db, trafficGiBMonth: 200 }\n", "    - { name: accounts-db, trafficGiBMonth: 200 }\n    - { name: accounts-db }\n"), [
            #"app.yaml:28:15: error: spec.dependsOn[1].name: "accounts-db" is already listed at app.yaml:27:15"#,
        ]),
        MalformedCase("an invalid Database is not also reported as an unknown dependency", .app("standbys: 1", "standbys: many"), [
            "app.yaml:41:13: error: spec.standbys must be an integer, found a string (many)",
        ]),
        MalformedCase("a Database with a quoted boolean is not also reported as an unknown dependency", .app("differentVendor: true", #"differentVendor: "true""#), [
            "app.yaml:45:42: error: spec.backup.disasterRecovery.differentVendor must be true or false, found a string (true)",
        ]),
    ]

    static let invalidApplication: [MalformedCase] = [
        MalformedCase("an invalid Application does not hide a dangling dependsOn", .app("currency: USD", "currency: usd") + [.replace(in: "app.yaml", "name: accounts-db, trafficGiBMonth", with: "name: nothing-here, trafficGiBMonth")], [
            #"app.yaml:5:13: error: spec.currency: "usd" is not a currency code: use three upper-case letters (ISO 4217), such as USD, EUR or RUB"#,
            #"app.yaml:27:15: error: spec.dependsOn[0].name: no Service or Database named "nothing-here""#,
        ]),
    ]

    static let invalidExchangeRate: [MalformedCase] = [
        MalformedCase("an exchange rate of 0 is not also reported as missing", .app("exchangeRates: { RUB: 0.011 }", "exchangeRates: { RUB: 0 }"), [
            "app.yaml:6:25: error: spec.exchangeRates.RUB must be more than 0",
        ]),
    ]

    static let cdnShadowsDatabase: [MalformedCase] = [
        MalformedCase("dependsOn a Database that shares its name with a CDN is accepted", .app("metadata: { name: static }", "metadata: { name: accounts-db }"), []),
    ]

    static let tabHint: [MalformedCase] = [
        MalformedCase("a tab after a non-ASCII comment still gets the tab hint", [.add("extra.yaml", "# Сервис очереди\n" + Template.service.replacingOccurrences(of: "  replicas: 2", with: "\treplicas: 2"))], [
            "extra.yaml:7:1: error: found a tab character that violates indentation (while scanning a plain scalar); YAML does not allow tabs for indentation, use spaces",
        ]),
        MalformedCase("a tab in a file with a byte order mark still gets the tab hint", [.add("extra.yaml", "\u{FEFF}" + Template.service.replacingOccurrences(of: "  replicas: 2", with: "\treplicas: 2"))], [
            "extra.yaml:6:1: error: found a tab character that violates indentation (while scanning a plain scalar); YAML does not allow tabs for indentation, use spaces",
        ]),
    ]

    static let poorAdvice: [MalformedCase] = [
        MalformedCase("a !!str tag is not called quotes", .extra(Template.service, "replicas: 2", "replicas: !!str 2"), [
            #"extra.yaml:6:13: error: spec.replicas must be an integer, found a string ("2"); remove the !!str tag"#,
        ]),
        MalformedCase("a whole number too large for an integer is not called a fraction", .extra(Template.service, "replicas: 2", "replicas: 99999999999999999999"), [
            "extra.yaml:6:13: error: spec.replicas must be at most 10000, found 99999999999999999999",
        ]),
        MalformedCase("a negative cron minute is quoted as written", .extra(Template.database, #""0 3 * * *""#, #""-1 3 * * *""#), [
            #"extra.yaml:9:15: error: spec.backup.schedule: "-1 3 * * *" is not a cron schedule: "-1" is not a valid minute"#,
        ]),
        MalformedCase("a probe port number in quotes is not called an unknown port name", .extra(Template.service, adding: "  probes: { liveness: { path: /livez, port: \"8080\" } }\n"), [
            #"extra.yaml:9:45: error: spec.probes.liveness.port: "8080" is a port number written as a string; remove the quotes"#,
        ]),
    ]

    static let regressions = droppedDocuments + invalidApplication + invalidExchangeRate + cdnShadowsDatabase + tabHint + poorAdvice
}

// MARK: - Paths

/// A directory tree to create, the paths to load from it, and every diagnostic expected (`$ROOT` is the tree's root).
struct DirectoryCase: Sendable, CustomTestStringConvertible {
    enum Entry: Sendable {
        case base(String)
        case text(String)
        case directory
    }

    var behaviour: String
    var tree: [String: Entry]
    var paths: [String]
    var providers: String?
    var expected: [String]

    var testDescription: String { behaviour }

    static let catalogAndApp: [String: Entry] = ["providers/clouds.yaml": .base("clouds.yaml"), "manifests/app.yaml": .base("app.yaml")]

    static let all = [
        DirectoryCase(
            behaviour: "a directory with no YAML file", tree: ["manifests/README.md": .text("# notes\n"), "providers/clouds.yaml": .base("clouds.yaml")],
            paths: ["manifests"], providers: "providers",
            expected: ["$ROOT/manifests: error: the directory holds no .yaml or .yml file", "error: no Application manifest found; exactly one is required"]
        ),
        DirectoryCase(
            behaviour: "an empty directory", tree: ["manifests": .directory, "providers/clouds.yaml": .base("clouds.yaml")],
            paths: ["manifests"], providers: "providers",
            expected: ["$ROOT/manifests: error: the directory holds no .yaml or .yml file", "error: no Application manifest found; exactly one is required"]
        ),
        DirectoryCase(
            behaviour: "a path that does not exist", tree: ["providers/clouds.yaml": .base("clouds.yaml")],
            paths: ["missing"], providers: "providers",
            expected: ["$ROOT/missing: error: no such file or directory", "error: no Application manifest found; exactly one is required"]
        ),
        DirectoryCase(
            behaviour: "a providers directory that does not exist", tree: ["manifests/app.yaml": .base("app.yaml")],
            paths: ["manifests"], providers: "nowhere",
            expected: ["$ROOT/nowhere: error: no such file or directory", "error: no Cloud manifests found; pass --providers DIR pointing at the cloud catalog"]
        ),
        DirectoryCase(
            behaviour: "files are found recursively and .yml counts", tree: ["manifests/deep/er/app.yml": .base("app.yaml"), "providers/clouds.yaml": .base("clouds.yaml")],
            paths: ["manifests"], providers: "providers", expected: []
        ),
        DirectoryCase(
            behaviour: "a directory named like a YAML file is not read", tree: catalogAndApp.merging(["manifests/old.yaml/notes.txt": .text("x\n")]) { $1 },
            paths: ["manifests"], providers: "providers", expected: []
        ),
        DirectoryCase(
            behaviour: "a file given by its path is read whatever its name", tree: ["manifests/app.txt": .base("app.yaml"), "providers/clouds.yaml": .base("clouds.yaml")],
            paths: ["manifests/app.txt"], providers: "providers", expected: []
        ),
        DirectoryCase(
            behaviour: "a file named twice is read once", tree: catalogAndApp,
            paths: ["providers/clouds.yaml", "manifests", "manifests/app.yaml"], providers: "providers", expected: []
        ),
        DirectoryCase(
            behaviour: "a diagnostic names the file by the path it was found under", tree: catalogAndApp.merging(["manifests/extra.yaml": .text("just text\n")]) { $1 },
            paths: ["manifests/"], providers: "providers",
            expected: ["$ROOT/manifests/extra.yaml:1:1: error: a manifest must be a mapping with apiVersion, kind, metadata and spec; found a string"]
        ),
    ]
}

@Suite struct ManifestPathTests {
    @Test(arguments: DirectoryCase.all)
    func loadsFilesAndDirectories(_ input: DirectoryCase) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-paths-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (path, entry) in input.tree {
            let full = root + "/" + path
            switch entry {
            case .directory:
                try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
            case .base(let name):
                let bytes = try #require(ManifestInput.base[name])
                try write(Data(bytes), to: full)
            case .text(let text):
                try write(Data(text.utf8), to: full)
            }
        }
        let set = ManifestLoader.load(paths: input.paths.map { root + "/" + $0 }, providers: input.providers.map { root + "/" + $0 })
        let expected = input.expected.map { $0.replacingOccurrences(of: "$ROOT", with: root) }
        #expect(set.diagnostics.map(\.description) == expected)
        #expect((set.model == nil) == !expected.isEmpty)
    }

    private func write(_ data: Data, to path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: path, contents: data))
    }
}

extension MalformedCase {
    // MARK: Policies

    static let policies: [MalformedCase] = [
        MalformedCase("a Policy with two rules is accepted", [.add("extra.yaml", Template.policy)], []),
        MalformedCase("a misspelt rule", .extra(Template.policy, "maxMonthlyCost: 250000", "maxMontlyCost: 250000"), [
            #"extra.yaml:6:9: error: spec.rules[0]: unknown key "maxMontlyCost"; did you mean "maxMonthlyCost"?"#,
        ]),
        MalformedCase("two rules in one entry", .extra(Template.policy, "maxMonthlyCost: 250000,", "maxMonthlyCost: 250000, maxCostIncrease: 10,"), [
            "extra.yaml:6:7: error: spec.rules[0]: a rule has exactly one of maxMonthlyCost, maxCostIncrease, denyDelete, denyMove, requireResidency; found maxMonthlyCost and maxCostIncrease",
        ]),
        MalformedCase("a rule without a level", .extra(Template.policy, "maxMonthlyCost: 250000, level: mandatory", "maxMonthlyCost: 250000"), [
            #"extra.yaml:6:7: error: spec.rules[0]: missing required key "level""#,
        ]),
        MalformedCase("a level that is not one", .extra(Template.policy, "level: advisory", "level: advisorry"), [
            #"extra.yaml:7:46: error: spec.rules[1].level: "advisorry" is not allowed; did you mean "advisory"?"#,
        ]),
        MalformedCase("a cost limit that is not a number", .extra(Template.policy, "maxMonthlyCost: 250000", "maxMonthlyCost: lots"), [
            "extra.yaml:6:25: error: spec.rules[0].maxMonthlyCost must be a number, found a string (lots)",
        ]),
        MalformedCase("a negative cost increase", .extra(Template.policy, "maxMonthlyCost: 250000", "maxCostIncrease: -5"), [
            "extra.yaml:6:26: error: spec.rules[0].maxCostIncrease must not be negative, found -5",
        ]),
        MalformedCase("denyDelete with nothing to deny", .extra(Template.policy, "maxMonthlyCost: 250000", "denyDelete: {}"), [
            "extra.yaml:6:21: error: spec.rules[0].denyDelete needs kinds or addresses (or both)",
        ]),
        MalformedCase("denyDelete of a kind mcloud does not render", .extra(Template.policy, "maxMonthlyCost: 250000", "denyDelete: { kinds: [Databse, Volume] }"), [
            #"extra.yaml:6:31: error: spec.rules[0].denyDelete.kinds[0]: "Databse" is not a kind mcloud renders; did you mean "Database"?"#,
        ]),
        MalformedCase("denyMove from a cloud that does not exist", .extra(Template.policy, "from: [vk-msk]", "from: [vk-mks]"), [
            #"extra.yaml:7:28: error: spec.rules[1].denyMove.from[0]: no Cloud named "vk-mks"; did you mean "vk-msk"?"#,
        ]),
        MalformedCase("requireResidency for an audience that does not exist", .extra(Template.policy, "maxMonthlyCost: 250000", "requireResidency: { data: personal, audience: rus, allowed: [RU] }"), [
            #"extra.yaml:6:55: error: spec.rules[0].requireResidency.audience: no audience named "rus"; did you mean "ru"?"#,
        ]),
        MalformedCase("requireResidency for a misspelt data class", .extra(Template.policy, "maxMonthlyCost: 250000", "requireResidency: { data: personnal, audience: ru, allowed: [RU] }"), [
            #"extra.yaml:6:35: error: spec.rules[0].requireResidency.data: no data class named "personnal" is declared; did you mean "personal"?"#,
        ]),
        MalformedCase("requireResidency without allowed", .extra(Template.policy, "maxMonthlyCost: 250000", "requireResidency: { data: personal, audience: ru }"), [
            #"extra.yaml:6:27: error: spec.rules[0].requireResidency: missing required key "allowed""#,
        ]),
        MalformedCase("a Policy without rules", .extra(Template.policy, "  rules:\n    - { maxMonthlyCost: 250000, level: mandatory }\n    - { denyMove: { from: [vk-msk] }, level: advisory }\n", "  rules: []\n"), [
            "extra.yaml:5:10: error: spec.rules must list at least one rule",
        ]),
        MalformedCase("two Policies with one name", [.add("extra.yaml", Template.policy + "---\n" + Template.policy)], [
            #"extra.yaml:11:19: error: metadata.name: Policy "guardrails" is already defined at extra.yaml:3:19"#,
        ]),
    ]
}
