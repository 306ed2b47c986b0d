// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "mcloud",
    products: [
        .executable(name: "mcloud", targets: ["mcloud"]),
    ],
    targets: [
        // C libraries from Debian, found through pkg-config. Each is wrapped by exactly one Swift module.
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // The vocabulary and the wrappers of the C libraries.
        .target(name: "MCloudCore", linkerSettings: [.linkedLibrary("m")]),
        .target(name: "MCloudYAML", dependencies: ["MCloudCore", "CYAML"], linkerSettings: [.linkedLibrary("m")]),
        .target(name: "MCloudHTTP", dependencies: ["CCurl", "COpenSSL"]),
        // Cryptographic primitives on OpenSSL, and the secrets scheme over them: derived passwords, age, SOPS.
        .target(name: "MCloudCrypto", dependencies: ["COpenSSL"]),
        // gzip, for user data the clouds would refuse as too long.
        .target(name: "MCloudCompression", dependencies: ["CZlib"]),
        .target(name: "MCloudSecrets", dependencies: ["MCloudCrypto", "MCloudYAML"]),
        // Manifests in, a placement out; the planner is pure.
        .target(name: "MCloudManifest", dependencies: ["MCloudCore", "MCloudYAML", "MCloudDatabaseEngines"]),
        .target(
            name: "MCloudPlanner", dependencies: ["MCloudCore", "MCloudDatabaseEngines"], exclude: ["Search/README.md"],
            // Optimized in debug builds too: the tests plan the bench instances, which unoptimized take minutes of CPU
            // that hold the test runner's cooperative threads (two on two cores) and starve the bed tests' requests.
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]
        ),
        // The engine catalog: which database engine runs how on which VM image, and its cloud-init; pure.
        .target(name: "MCloudDatabaseEngines", dependencies: ["MCloudCore", "MCloudSecrets"]),
        // Placement inputs of any size from a seeded generator, for the benchmark, the tests and the report's examples.
        .target(name: "MCloudSynthetic", dependencies: ["MCloudCore"]),
        // The contract between rendering, the engine and the providers, and the state backends.
        .target(name: "MCloudProvider", dependencies: ["MCloudCore"]),
        .target(name: "MCloudState", dependencies: ["MCloudCore", "MCloudProvider", "CPostgres"]),
        // Each cloud's client, then the provider built on it (a provider may use another cloud's client, never another provider).
        .target(name: "MCloudKubernetes", dependencies: ["MCloudCore", "MCloudHTTP", "MCloudYAML"]),
        .target(name: "MCloudOpenStack", dependencies: ["MCloudCore", "MCloudHTTP", "MCloudYAML"]),
        .target(name: "MCloudAWS", dependencies: ["MCloudCore", "MCloudHTTP", "MCloudCrypto"]),
        .target(name: "MCloudCDN", dependencies: ["MCloudCore", "MCloudHTTP", "MCloudAWS"]),
        .target(name: "MCloudKubernetesProvider", dependencies: ["MCloudCore", "MCloudHTTP", "MCloudProvider", "MCloudKubernetes", "MCloudDatabaseEngines", "MCloudSecrets"]),
        .target(name: "MCloudOpenStackProvider", dependencies: ["MCloudCore", "MCloudHTTP", "MCloudProvider", "MCloudOpenStack", "MCloudAWS", "MCloudDatabaseEngines", "MCloudSecrets", "MCloudCompression"]),
        .target(name: "MCloudAWSProvider", dependencies: ["MCloudCore", "MCloudHTTP", "MCloudCrypto", "MCloudProvider", "MCloudAWS", "MCloudDatabaseEngines", "MCloudSecrets", "MCloudCompression"]),
        .target(name: "MCloudCDNProvider", dependencies: ["MCloudCore", "MCloudHTTP", "MCloudCrypto", "MCloudProvider", "MCloudCDN", "MCloudAWS"]),
        // Placement to resources, resources to changes, changes to what people read.
        .target(name: "MCloudRender", dependencies: ["MCloudCore", "MCloudPlanner", "MCloudProvider", "MCloudDatabaseEngines", "MCloudSecrets"]),
        .target(name: "MCloudEngine", dependencies: ["MCloudCore", "MCloudProvider"]),
        .target(name: "MCloudViews", dependencies: ["MCloudCore", "MCloudPlanner", "MCloudProvider", "MCloudEngine"]),
        .target(name: "MCloudPolicy", dependencies: ["MCloudCore", "MCloudProvider", "MCloudEngine", "MCloudViews"]),
        .target(
            name: "MCloudCLI",
            dependencies: [
                "MCloudCore", "MCloudYAML", "MCloudHTTP", "MCloudCrypto", "MCloudManifest", "MCloudPlanner", "MCloudProvider", "MCloudState", "MCloudRender",
                "MCloudEngine", "MCloudViews", "MCloudPolicy", "MCloudKubernetesProvider", "MCloudOpenStackProvider", "MCloudAWSProvider",
                "MCloudCDNProvider", "MCloudDatabaseEngines", "MCloudSecrets",
            ]
        ),
        .executableTarget(name: "mcloud", dependencies: ["MCloudCLI"]),
        .executableTarget(
            name: "mcloud-bench",
            dependencies: [
                "MCloudCore", "MCloudHTTP", "MCloudManifest", "MCloudPlanner", "MCloudProvider", "MCloudState", "MCloudKubernetes",
                "MCloudKubernetesProvider", "MCloudOpenStack", "MCloudRender", "MCloudEngine", "MCloudViews", "MCloudSynthetic", "MCloudDatabaseEngines", "MCloudAWS",
                "MCloudSecrets",
                // The container and moto beds, as the tests reach them: database-vms boots on them.
                "MCloudTestSupport",
            ]
        ),

        // What the integration tests share: test bed env files and the python helpers they start.
        .target(name: "MCloudTestSupport", dependencies: ["MCloudCompression", "MCloudCore", "MCloudProvider"], path: "Tests/MCloudTestSupport"),
        // Holds the module graph to docs/architecture.md: reads Package.swift, the import lines and the drawing.
        .testTarget(name: "ArchitectureTests"),
        // The scripts a newcomer runs first: install-deps.sh, toolchain.sh, the optional comparison's message.
        .testTarget(name: "ScriptTests", dependencies: ["MCloudTestSupport"]),
        .testTarget(name: "MCloudCoreTests", dependencies: ["MCloudCore"]),
        .testTarget(name: "MCloudDatabaseEnginesTests", dependencies: ["MCloudDatabaseEngines", "MCloudCore", "MCloudYAML", "MCloudTestSupport", "MCloudSecrets", "MCloudCompression"]),
        .testTarget(name: "MCloudYAMLTests", dependencies: ["MCloudYAML", "MCloudCore"]),
        .testTarget(name: "MCloudCryptoTests", dependencies: ["MCloudCrypto"]),
        .testTarget(name: "MCloudCompressionTests", dependencies: ["MCloudCompression", "MCloudTestSupport"]),
        .testTarget(name: "MCloudSecretsTests", dependencies: ["MCloudSecrets", "MCloudCrypto"], exclude: ["Fixtures", "Golden"]),
        .testTarget(name: "MCloudHTTPTests", dependencies: ["MCloudHTTP", "MCloudTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "MCloudProviderTests", dependencies: ["MCloudProvider", "MCloudCore"]),
        .testTarget(name: "MCloudStateTests", dependencies: ["MCloudState", "MCloudProvider", "MCloudCore"]),
        // Another process holding a postgres:// state lock, for the cross-process lock tests.
        .executableTarget(name: "StateLockHolder", dependencies: ["MCloudState", "MCloudProvider"], path: "Tests/StateLockHolder"),
        .testTarget(name: "MCloudOpenStackTests", dependencies: ["MCloudTestSupport", "MCloudOpenStack", "MCloudHTTP", "MCloudYAML", "MCloudCore"], exclude: ["Fixtures"]),
        .testTarget(name: "MCloudOpenStackProviderTests", dependencies: ["MCloudOpenStackProvider", "MCloudCrypto", "MCloudOpenStack", "MCloudProvider", "MCloudCore", "MCloudAWS", "MCloudYAML", "MCloudHTTP", "MCloudTestSupport", "MCloudDatabaseEngines", "MCloudSecrets", "MCloudCompression"]),
        .testTarget(name: "MCloudAWSTests", dependencies: ["MCloudTestSupport", "MCloudCrypto", "MCloudAWS", "MCloudAWSProvider", "MCloudHTTP", "MCloudCore", "MCloudProvider", "MCloudEngine", "MCloudState"], exclude: ["Fixtures"]),
        .testTarget(
            name: "MCloudEngineTests",
            dependencies: ["MCloudEngine", "MCloudProvider", "MCloudState", "MCloudCore", "MCloudManifest", "MCloudPlanner", "MCloudRender"]
        ),
        .testTarget(name: "MCloudPlannerTests", dependencies: ["MCloudPlanner", "MCloudManifest", "MCloudViews", "MCloudCore", "MCloudDatabaseEngines", "MCloudSynthetic"], exclude: ["Fixtures"]),
        .testTarget(
            name: "MCloudViewsTests",
            dependencies: ["MCloudViews", "MCloudEngine", "MCloudProvider", "MCloudCore", "MCloudManifest", "MCloudPlanner", "MCloudRender"]
        ),
        .testTarget(
            name: "MCloudPolicyTests",
            dependencies: ["MCloudPolicy", "MCloudViews", "MCloudEngine", "MCloudProvider", "MCloudCore", "MCloudManifest", "MCloudPlanner", "MCloudRender"]
        ),
        .testTarget(
            name: "MCloudKubernetesTests",
            dependencies: [
                "MCloudTestSupport", "MCloudKubernetes", "MCloudKubernetesProvider", "MCloudProvider", "MCloudHTTP", "MCloudManifest", "MCloudPlanner",
                "MCloudRender", "MCloudCore", "MCloudEngine", "MCloudState", "MCloudDatabaseEngines", "MCloudSecrets",
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "MCloudManifestTests",
            dependencies: ["MCloudManifest", "MCloudYAML", "MCloudCore", "MCloudSynthetic"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "MCloudRenderTests",
            dependencies: [
                "MCloudRender", "MCloudManifest", "MCloudPlanner", "MCloudYAML", "MCloudCore", "MCloudProvider", "MCloudTestSupport", "MCloudSecrets",
                "MCloudDatabaseEngines",
            ],
            exclude: ["Golden"]
        ),
        .testTarget(name: "MCloudCDNTests", dependencies: ["MCloudTestSupport", "MCloudCDN", "MCloudCDNProvider", "MCloudAWS", "MCloudHTTP", "MCloudCore", "MCloudProvider"]),
        .testTarget(
            name: "MCloudCLITests",
            dependencies: [
                "MCloudTestSupport", "MCloudCLI", "MCloudKubernetes", "MCloudState", "MCloudProvider", "MCloudCore", "MCloudHTTP", "MCloudOpenStack",
                "MCloudAWS", "MCloudSynthetic", "MCloudSecrets", "MCloudDatabaseEngines", "MCloudEngine", "MCloudCompression",
            ],
            exclude: ["Golden", "Fixtures"]
        ),
    ]
)

// Every module under Sources/ has a README.md of its contract, which is not a source file.
for target in package.targets where target.type != .system && target.type != .test && target.path == nil {
    target.exclude.append("README.md")
}

// One place for the compiler settings every Swift target shares.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
