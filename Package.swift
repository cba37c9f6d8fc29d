// swift-tools-version: 6.2
// alstats: an App Links analytics pipeline (event bus, SQLite store, report, CLI).

import PackageDescription

/// Settings shared by every target of ours: Swift 6 mode (from the tools version) and no warnings.
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error)
]

/// `ALSTATS_CORE_ONLY=1` leaves the HTTP server out: EventServer, its tests, the uploader's tests, the runs of
/// `alstats serve` among alstatsTests and `alstats serve` itself; and the PostgreSQL backend (EventStorePostgres, its
/// tests and `alstats-bench postgres`). CI's ThreadSanitizer run uses it so that it does not build the
/// server packages a second time; every other build has everything.
let coreOnly = Context.environment["ALSTATS_CORE_ONLY"] != nil

/// `ALSTATS_URLSESSION`: the build has the HTTP clients on Foundation's `URLSession` (`HTTPAppLinkResolver`,
/// `URLSessionUploadTransport`). Apple platforms have them, where `URLSession` is the system's own; Linux has
/// AsyncHTTPClient's instead (AppLinksHTTPClient, EventUploadHTTPClient), so that no process of ours loads
/// FoundationNetworking and the libcurl beneath it (libcurl, gnutls, OpenSSL, Kerberos, LDAP: about 6 MB of every
/// process's memory), and so that no upload goes through libcurl's re-send without the body (docs/upload.md). The
/// core-only build has no NIO, so it keeps `URLSession` on Linux too.
let urlSession: [SwiftSetting] =
    coreOnly
    ? [.define("ALSTATS_URLSESSION")]
    : [.define("ALSTATS_URLSESSION", .when(platforms: [.macOS, .macCatalyst, .iOS, .tvOS, .watchOS, .visionOS]))]

let package = Package(
    name: "alstats",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MeasurementEvents", targets: ["MeasurementEvents"]),
        .library(name: "AppLinks", targets: ["AppLinks"]),
        .library(name: "AppLinksHTTPClient", targets: ["AppLinksHTTPClient"]),
        .library(name: "EventStoreInterface", targets: ["EventStoreInterface"]),
        .library(name: "EventStoreSQLite", targets: ["EventStoreSQLite"]),
        .library(name: "EventReport", targets: ["EventReport"]),
        .library(name: "HostedLinks", targets: ["HostedLinks"]),
        .library(name: "EventUpload", targets: ["EventUpload"]),
        .library(name: "EventUploadHTTPClient", targets: ["EventUploadHTTPClient"]),
        .library(name: "EventServer", targets: ["EventServer"]),
        .library(name: "EventStorePostgres", targets: ["EventStorePostgres"]),
        .executable(name: "alstats", targets: ["alstats"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The HTTP face (EventServer) only: the library targets below stay free of them.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The collector's tests gzip their bodies with it.
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        // The uploader's transport for Linux (EventUploadHTTPClient) only.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The PostgreSQL backend (EventStorePostgres) only.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .target(name: "MeasurementEvents", swiftSettings: strict),
        .target(name: "AppLinks", dependencies: ["MeasurementEvents"], swiftSettings: strict + urlSession),
        // The App Link page fetch on AsyncHTTPClient (SwiftNIO), `HTTPAppLinkResolver`'s counterpart on Linux; a
        // module of its own so that an app that embeds AppLinks on iOS links no NIO.
        .target(
            name: "AppLinksHTTPClient",
            dependencies: [
                "AppLinks",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The SQL is embedded in the code by the EmbedSQL plugin (a lone copied `alstats` binary still migrates and
        // runs its queries): the schema from the top-level Migrations/, the queries from Queries/, and a module's
        // own statements from its Statements/ folder (Plugins/EmbedSQL/EmbedSQL.swift names the folders).
        .executableTarget(name: "embed-sql", path: "Plugins/EmbedSQLTool", swiftSettings: strict),
        .plugin(name: "EmbedSQL", capability: .buildTool(), dependencies: ["embed-sql"]),
        // What every store shares and no database knows: the backend protocol, the report source, store locations,
        // the NDJSON codec and the generic ingest (docs/design/architecture.md).
        .target(
            name: "EventStoreInterface", dependencies: ["MeasurementEvents"], swiftSettings: strict,
            plugins: ["EmbedSQL"]),
        // The system SQLite's C API behind a small Swift face: the SQLite store and the uploader's outbox use it.
        .target(
            name: "SQLiteSupport", dependencies: ["EventStoreInterface", "MeasurementEvents", "CSQLite"],
            swiftSettings: strict),
        // Zstandard with a dictionary trained on each database's own events packs the store's long fields
        // (docs/design/storage-layout.md, "Packed fields"); Linux only, as Apple's SDKs ship no libzstd.
        .systemLibrary(
            name: "CZstd", path: "Sources/CZstd", pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
        .target(
            name: "EventStoreSQLite",
            dependencies: [
                "EventStoreInterface", "SQLiteSupport", "MeasurementEvents", "CSQLite",
                .target(name: "CZstd", condition: .when(platforms: [.linux])),
            ],
            exclude: ["Statements"], swiftSettings: strict, plugins: ["EmbedSQL"]),
        .target(
            name: "EventReport", dependencies: ["EventStoreInterface", "MeasurementEvents"], swiftSettings: strict),
        // The one opener of stores (a file path or a PostgreSQL URL) for the CLI, `alstats serve` and the in-process
        // collector.
        .target(
            name: "StoreOpening",
            dependencies: ["EventStoreSQLite", "EventStoreInterface", "EventReport", "MeasurementEvents"]
                + (coreOnly
                    ? []
                    : [
                        "EventStorePostgres",
                        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                    ]),
            swiftSettings: strict + (coreOnly ? [.define("ALSTATS_CORE_ONLY")] : [])),
        // The click token's form and its reading from a pasteboard URL or install referrer are AppLinks' (the app's
        // library), so that the collector reads a claim's token as the app does.
        .target(name: "HostedLinks", dependencies: ["MeasurementEvents", "AppLinks"], swiftSettings: strict),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // ISA-L writes the uploader's gzip batches on Linux at four times zlib's speed and twice libdeflate's, and
        // inflates the collector's bodies at libdeflate's (Sources/CIsal/shim.h); Apple platforms keep the system
        // zlib, as their SDKs ship no ISA-L.
        .systemLibrary(
            name: "CIsal", path: "Sources/CIsal", pkgConfig: "libisal",
            providers: [.apt(["libisal-dev"]), .brew(["isa-l"])]),
        // Its tables are its own: migrated from Migrations/upload/, used through its Statements/ (EmbedSQL). It knows
        // no store: the system SQLite through SQLiteSupport (whose errors and embedded SQL files are
        // EventStoreInterface's, which knows no database), zlib (ISA-L on Linux) for its gzip bodies, and the event
        // model; AppLinks for the deferred link its claim of a click brings back (DeferredLinkClaim).
        .target(
            name: "EventUpload",
            dependencies: [
                "MeasurementEvents", "AppLinks", "EventStoreInterface", "SQLiteSupport", "CZlib",
                .target(name: "CIsal", condition: .when(platforms: [.linux])),
            ],
            exclude: ["Statements"], swiftSettings: strict + urlSession, plugins: ["EmbedSQL"]),
        // The uploader's HTTP transport on AsyncHTTPClient (SwiftNIO), the default of `alstats push` and `alstats
        // demo` on Linux; a module of its own so that an app that embeds EventUpload on iOS links no NIO.
        .target(
            name: "EventUploadHTTPClient",
            dependencies: [
                "EventUpload",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .target(
            name: "EventServer",
            dependencies: [
                "EventStoreInterface", "EventReport", "MeasurementEvents", "HostedLinks", "StoreOpening",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                // gzip bodies are inflated whole, refused whole when cut short: with ISA-L on Linux (twice zlib's
                // speed), with the system zlib elsewhere.
                "CZlib", .target(name: "CIsal", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strict
        ),
        // The PostgreSQL backend: the same interfaces as SQLiteEventStore's SQLite store, on postgres-nio. Its SQL
        // (Migrations/postgres/, its Statements/) is embedded like SQLiteEventStore's.
        .target(
            name: "EventStorePostgres",
            dependencies: [
                "EventStoreInterface", "MeasurementEvents",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["Statements"], swiftSettings: strict, plugins: ["EmbedSQL"]),
        .executableTarget(
            name: "alstats",
            dependencies: [
                "MeasurementEvents",
                "AppLinks",
                "EventStoreSQLite", "EventStoreInterface",
                "EventReport",
                "HostedLinks",
                "EventUpload",
                "StoreOpening",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
                + (coreOnly
                    ? []
                    : [
                        "EventServer", "EventStorePostgres", "EventUploadHTTPClient", "AppLinksHTTPClient",
                        .product(name: "Logging", package: "swift-log"),
                    ]),
            swiftSettings: strict + (coreOnly ? [.define("ALSTATS_CORE_ONLY")] : []) + urlSession
        ),
        // The links benchmark calibrates its load client on a bare Hummingbird application in the bench itself;
        // the postgres benchmark needs the PostgreSQL backend and its client.
        .executableTarget(
            name: "alstats-bench",
            dependencies: [
                "MeasurementEvents", "EventStoreSQLite", "EventStoreInterface", "SQLiteSupport", "EventReport", "EventUpload",
                "HostedLinks", "CSQLite",
            ]
                + (coreOnly
                    ? []
                    : [
                        .product(name: "Hummingbird", package: "hummingbird"),
                        "EventStorePostgres", "EventUploadHTTPClient",
                        .product(name: "PostgresNIO", package: "postgres-nio"),
                        .product(name: "NIOCore", package: "swift-nio"),
                        .product(name: "Logging", package: "swift-log"),
                    ]),
            swiftSettings: strict + (coreOnly ? [.define("ALSTATS_CORE_ONLY")] : []) + urlSession),
        // The Swift snippets of README.md and docs/*.md (.ci/docs checks each is here): compiled, never run.
        .target(
            name: "DocSnippets",
            dependencies: [
                "MeasurementEvents", "AppLinks", "EventStoreSQLite", "EventStoreInterface", "EventReport", "EventUpload",
                "EventStorePostgres", "AppLinksHTTPClient", "EventUploadHTTPClient",
            ],
            path: "Examples/Snippets", swiftSettings: strict + urlSession),
        .executableTarget(
            name: "upload-example",
            dependencies: ["EventUpload", "MeasurementEvents"]
                + (coreOnly ? [] : [.target(name: "EventUploadHTTPClient", condition: .when(platforms: [.linux]))]),
            path: "Examples/UploadingApp", swiftSettings: strict + urlSession),
        // What the test targets share: one runner for the built `alstats`, temporary databases, a loopback
        // HTTP server, the sample events, a report's database and the uploader's helpers. A regular target that only
        // test targets depend on; it sees the modules' package API and never imports one @testable.
        .target(
            name: "TestSupport",
            dependencies: ["MeasurementEvents", "EventStoreInterface", "EventStoreSQLite", "EventUpload"],
            path: "Tests/TestSupport", swiftSettings: strict),
        // A database of its own per test on the PostgreSQL server of ALSTATS_TEST_POSTGRES_URL, and the parity
        // events: for the PostgreSQL backend's tests and the runs of the built binary against PostgreSQL.
        .target(
            name: "PostgresTestSupport",
            dependencies: [
                "EventStorePostgres", "EventStoreInterface", "MeasurementEvents", "TestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/PostgresTestSupport", swiftSettings: strict),
        // The end-to-end runs of the built `alstats` (and of `upload-example`): a user's commands, exit statuses and
        // output. Serve/, Upload/ and Postgres/ need the server build (`alstats serve`, the PostgreSQL backend, the
        // uploader's HTTP transport): the core-only build leaves those folders out.
        .testTarget(
            name: "alstatsTests",
            dependencies: ["EventStoreSQLite", "EventStoreInterface", "SQLiteSupport", "MeasurementEvents", "TestSupport"]
                + (coreOnly
                    ? []
                    : [
                        "EventUpload", "EventUploadHTTPClient", "EventStorePostgres", "PostgresTestSupport", "AppLinks",
                        .product(name: "PostgresNIO", package: "postgres-nio"),
                    ]),
            exclude: coreOnly ? ["Serve", "Upload", "Postgres"] : [],
            // The core-only binary has no PostgreSQL backend (DatabaseURLCLITests expects its own exit status).
            swiftSettings: strict + (coreOnly ? [.define("ALSTATS_CORE_ONLY")] : [])),
        .testTarget(name: "MeasurementEventsTests", dependencies: ["MeasurementEvents"], swiftSettings: strict),
        .testTarget(
            name: "SQLiteSupportTests",
            dependencies: ["SQLiteSupport", "EventStoreInterface", "MeasurementEvents", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "AppLinksTests",
            dependencies: ["AppLinks", "MeasurementEvents", "TestSupport"] + (coreOnly ? [] : ["AppLinksHTTPClient"]),
            exclude: ["Regressions"],
            swiftSettings: strict + urlSession
        ),
        .testTarget(
            name: "EventStoreSQLiteTests",
            dependencies: [
                "EventStoreSQLite", "EventStoreInterface", "SQLiteSupport", "MeasurementEvents", "CSQLite", "TestSupport",
            ],
            exclude: ["Regressions", "Schema/Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "EventReportTests",
            dependencies: [
                "EventReport", "EventStoreSQLite", "EventStoreInterface", "SQLiteSupport", "MeasurementEvents", "HostedLinks",
                "TestSupport",
            ],
            exclude: ["Golden"], swiftSettings: strict),
        .testTarget(
            name: "EventUploadTests",
            dependencies: [
                "EventUpload", "EventStoreSQLite", "EventStoreInterface", "SQLiteSupport", "MeasurementEvents", "TestSupport",
            ],
            exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "EventServerTests",
            dependencies: [
                "EventServer", "EventStoreSQLite", "EventStoreInterface", "SQLiteSupport", "EventReport", "MeasurementEvents",
                "HostedLinks", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "EventStorePostgresTests",
            dependencies: [
                "EventStorePostgres", "EventStoreSQLite", "EventStoreInterface", "SQLiteSupport", "EventReport",
                "MeasurementEvents", "TestSupport", "PostgresTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "HostedLinksTests", dependencies: ["HostedLinks", "AppLinks", "MeasurementEvents", "TestSupport"],
            swiftSettings: strict),
    ]
)

if coreOnly {
    let server: Set = [
        "EventServer", "EventServerTests", "EventUploadTests", "EventStorePostgres", "EventStorePostgresTests",
        "PostgresTestSupport", "EventUploadHTTPClient", "AppLinksHTTPClient", "DocSnippets",
    ]
    package.targets.removeAll { server.contains($0.name) }
    package.products.removeAll {
        ["EventServer", "EventStorePostgres", "EventUploadHTTPClient", "AppLinksHTTPClient"].contains($0.name)
    }
}
