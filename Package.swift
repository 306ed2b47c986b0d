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

        .target(name: "MCloudCore", linkerSettings: [.linkedLibrary("m")]),
        .target(name: "MCloudYAML", dependencies: ["MCloudCore", "CYAML"], linkerSettings: [.linkedLibrary("m")]),
        .target(name: "MCloudHTTP", dependencies: ["MCloudCore", "CCurl", "COpenSSL"]),
        .target(name: "MCloudDatabaseEngines", dependencies: ["MCloudCore"]),
        .target(name: "MCloudManifest", dependencies: ["MCloudCore", "MCloudYAML", "MCloudDatabaseEngines"]),
        .target(name: "MCloudPlanner", dependencies: ["MCloudCore", "MCloudDatabaseEngines"]),
        .target(name: "MCloudProvider", dependencies: ["MCloudCore"]),
        .target(name: "MCloudKubernetes", dependencies: ["MCloudCore", "MCloudHTTP", "MCloudYAML"]),
        .target(name: "MCloudKubernetesProvider", dependencies: ["MCloudCore", "MCloudProvider", "MCloudKubernetes"]),
        .target(name: "MCloudRender", dependencies: ["MCloudCore", "MCloudPlanner", "MCloudProvider", "MCloudYAML", "MCloudDatabaseEngines"]),
        .target(name: "MCloudState", dependencies: ["MCloudCore", "MCloudProvider", "CPostgres"]),
        .target(name: "MCloudOpenStack", dependencies: ["MCloudCore", "MCloudHTTP", "MCloudYAML"]),
        .target(name: "MCloudAWS", dependencies: ["MCloudCore", "MCloudHTTP"]),
        .target(name: "MCloudAWSProvider", dependencies: ["MCloudCore", "MCloudHTTP", "MCloudProvider", "MCloudAWS", "MCloudDatabaseEngines"]),
        .target(name: "MCloudCDN", dependencies: ["MCloudCore", "MCloudHTTP", "MCloudAWS"]),
        .target(name: "MCloudCDNProvider", dependencies: ["MCloudCore", "MCloudHTTP", "MCloudProvider", "MCloudCDN", "MCloudAWS"]),
        .target(name: "MCloudOpenStackProvider", dependencies: ["MCloudCore", "MCloudHTTP", "MCloudOpenStack", "MCloudAWS", "MCloudProvider", "MCloudDatabaseEngines"]),
        .target(name: "MCloudEngine", dependencies: ["MCloudCore", "MCloudProvider"]),
        .target(name: "MCloudViews", dependencies: ["MCloudCore", "MCloudPlanner", "MCloudProvider", "MCloudEngine"]),
        .target(
            name: "MCloudCLI",
            dependencies: [
                "MCloudCore", "MCloudYAML", "MCloudManifest", "MCloudHTTP", "MCloudPlanner", "MCloudRender", "MCloudState", "MCloudProvider",
                "MCloudEngine", "MCloudViews", "MCloudKubernetesProvider", "MCloudAWSProvider", "MCloudCDNProvider", "MCloudOpenStackProvider",
            ]
        ),
        .executableTarget(name: "mcloud", dependencies: ["MCloudCLI"]),
        .executableTarget(
            name: "mcloud-bench",
            dependencies: ["MCloudCore", "MCloudManifest", "MCloudPlanner", "MCloudKubernetes", "MCloudKubernetesProvider", "MCloudRender", "MCloudEngine", "MCloudViews", "MCloudProvider", "MCloudState", "MCloudOpenStack"]
        ),

        // What the integration tests share: test bed env files and the python helpers they start.
        .target(name: "MCloudTestSupport", path: "Tests/MCloudTestSupport"),
        .testTarget(name: "MCloudCoreTests", dependencies: ["MCloudCore"]),
        .testTarget(name: "MCloudDatabaseEnginesTests", dependencies: ["MCloudDatabaseEngines", "MCloudCore", "MCloudYAML", "MCloudTestSupport"]),
        .testTarget(name: "MCloudYAMLTests", dependencies: ["MCloudYAML"]),
        .testTarget(name: "MCloudHTTPTests", dependencies: ["MCloudHTTP"], exclude: ["Fixtures"]),
        .testTarget(name: "MCloudStateTests", dependencies: ["MCloudState", "MCloudProvider", "MCloudCore"]),
        // Another process holding a postgres:// state lock, for the cross-process lock tests.
        .executableTarget(name: "StateLockHolder", dependencies: ["MCloudState", "MCloudProvider"], path: "Tests/StateLockHolder"),
        .testTarget(name: "MCloudOpenStackTests", dependencies: ["MCloudTestSupport", "MCloudOpenStack", "MCloudHTTP", "MCloudYAML"], exclude: ["Fixtures"]),
        .testTarget(name: "MCloudOpenStackProviderTests", dependencies: ["MCloudOpenStackProvider", "MCloudOpenStack", "MCloudProvider", "MCloudCore", "MCloudAWS", "MCloudYAML", "MCloudHTTP", "MCloudTestSupport", "MCloudDatabaseEngines"]),
        .testTarget(name: "MCloudAWSTests", dependencies: ["MCloudTestSupport", "MCloudAWS", "MCloudAWSProvider", "MCloudHTTP", "MCloudCore", "MCloudProvider"], exclude: ["Fixtures"]),
        .testTarget(
            name: "MCloudEngineTests",
            dependencies: ["MCloudEngine", "MCloudProvider", "MCloudState", "MCloudCore", "MCloudManifest", "MCloudPlanner", "MCloudRender"]
        ),
        .testTarget(name: "MCloudPlannerTests", dependencies: ["MCloudPlanner", "MCloudManifest", "MCloudViews", "MCloudDatabaseEngines", "MCloudCore"]),
        .testTarget(
            name: "MCloudViewsTests",
            dependencies: ["MCloudViews", "MCloudEngine", "MCloudProvider", "MCloudCore", "MCloudManifest", "MCloudPlanner", "MCloudRender"]
        ),
        .testTarget(name: "MCloudKubernetesTests", dependencies: ["MCloudTestSupport", "MCloudKubernetes", "MCloudHTTP", "MCloudManifest", "MCloudPlanner", "MCloudRender"], exclude: ["Fixtures"]),
        .testTarget(
            name: "MCloudManifestTests",
            dependencies: ["MCloudManifest", "MCloudYAML"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "MCloudRenderTests",
            dependencies: ["MCloudRender", "MCloudManifest", "MCloudPlanner", "MCloudYAML"],
            exclude: ["Golden"]
        ),
        .testTarget(name: "MCloudCDNTests", dependencies: ["MCloudTestSupport", "MCloudCDN", "MCloudCDNProvider", "MCloudAWS", "MCloudHTTP", "MCloudCore", "MCloudProvider"]),
        .testTarget(
            name: "MCloudCLITests",
            dependencies: ["MCloudTestSupport", "MCloudCLI", "MCloudKubernetes", "MCloudState", "MCloudCore", "MCloudHTTP", "MCloudOpenStack", "MCloudAWS"],
            exclude: ["Golden", "Fixtures"]
        ),
    ]
)

// One place for the compiler settings every Swift target shares.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
