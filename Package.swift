// swift-tools-version: 6.2
// alstats: an App Links analytics pipeline (event bus, stores, report, collector, CLI).

import PackageDescription

/// Settings shared by every target of ours: Swift 6 mode (from the tools version) and no warnings.
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error)
]

/// The platforms whose SDKs have `URLSession` as the system's own HTTP client (and no ISA-L or Zstandard).
let apple: [Platform] = [.macOS, .macCatalyst, .iOS, .tvOS, .watchOS, .visionOS]

/// `ALSTATS_URLSESSION`: the library's HTTP clients on Foundation's `URLSession` (`HTTPAppLinkResolver`,
/// `URLSessionUploadTransport`) are built for Apple platforms, where `URLSession` is the system's own. On Linux the
/// `Server` trait's AsyncHTTPClient modules (AppLinksHTTPClient, EventUploadHTTPClient) take their place, so that no
/// process of ours loads FoundationNetworking and the libcurl beneath it (about 6 MB of every process's memory);
/// a Linux build without the trait has no NIO and builds the `URLSession` clients instead (`#if ALSTATS_URLSESSION
/// || !Server` in the code).
let urlSession: [SwiftSetting] = [.define("ALSTATS_URLSESSION", .when(platforms: apple))]

/// A dependency of the `Server` trait: the HTTP server, the PostgreSQL backend, the AsyncHTTPClient transports and
/// their packages. Without the trait (`--disable-default-traits`) none of those packages is even resolved.
func server(_ dependency: String) -> Target.Dependency {
    .target(name: dependency, condition: .when(traits: ["Server"]))
}

/// A product of a package that only the `Server` trait uses.
func server(_ product: String, package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: ["Server"]))
}

let package = Package(
    name: "alstats",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MeasurementEvents", targets: ["MeasurementEvents"]),
        .library(name: "AppLinks", targets: ["AppLinks"]),
        .library(name: "AppLinksHTTPClient", targets: ["AppLinksHTTPClient"]),
        .library(name: "AppLinksCheck", targets: ["AppLinksCheck"]),
        .library(name: "EventStoreInterface", targets: ["EventStoreInterface"]),
        .library(name: "EventIngest", targets: ["EventIngest"]),
        .library(name: "EventStoreSQLite", targets: ["EventStoreSQLite"]),
        // The SQLite loadable extension of alstats's SQL functions, for the `sqlite3` shell and Python's `sqlite3`
        // (docs/sql.md): `.load .build/release/libAlstatsSQLite`.
        .library(name: "AlstatsSQLite", type: .dynamic, targets: ["AlstatsSQLite"]),
        .library(name: "EventStorePostgres", targets: ["EventStorePostgres"]),
        .library(name: "StoreOpening", targets: ["StoreOpening"]),
        .library(name: "EventReport", targets: ["EventReport"]),
        .library(name: "HostedLinks", targets: ["HostedLinks"]),
        .library(name: "EventUpload", targets: ["EventUpload"]),
        .library(name: "EventUploadHTTPClient", targets: ["EventUploadHTTPClient"]),
        .library(name: "EventServer", targets: ["EventServer"]),
        .executable(name: "alstats", targets: ["alstats"]),
    ],
    traits: [
        // The core-only build is `--disable-default-traits`: the event model, AppLinks, the SQLite store, the report,
        // the uploader and the CLI without `serve` and PostgreSQL. CI's ThreadSanitizer run builds it (.ci/run), so
        // that it does not compile the server packages a second time; an app that embeds only the library may too.
        .trait(
            name: "Server",
            description: "alstats serve (Hummingbird), the PostgreSQL backend, and HTTP out on AsyncHTTPClient"),
        // Opt-in (`--traits Server,ISAL`): a fresh Debian or Ubuntu box builds with libsqlite3-dev, zlib1g-dev and
        // libzstd-dev alone; with libisal-dev installed, this trait has the uploader write its gzip on Linux at four
        // times zlib's speed (docs/benchmarks.md, `upload`).
        .trait(
            name: "ISAL",
            description: "gzip on Linux with ISA-L (libisal-dev) instead of the system zlib, for the uploader's CPU"),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The `Server` trait's packages: the library targets stay free of them.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The collector's tests gzip their bodies with it.
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        // HTTP out of a Linux process: the uploader's transport and the App Link page fetch.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The PostgreSQL backend (EventStorePostgres) only.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // MARK: The event model, App Links and hosted links (no database, no server).
        .target(name: "MeasurementEvents", swiftSettings: strict),
        .target(name: "AppLinks", dependencies: ["MeasurementEvents"], swiftSettings: strict + urlSession),
        // `alstats check`'s verdicts: the association files and App Link tags as iOS, Android and App Links clients
        // read them. Foundation only, behind a fetch seam (it could run on iOS); a module of its own so that an app
        // that embeds AppLinks does not carry a developer's checker.
        .target(name: "AppLinksCheck", dependencies: ["AppLinks", "MeasurementEvents"], swiftSettings: strict),
        // The App Link page fetch on AsyncHTTPClient, `HTTPAppLinkResolver`'s counterpart on Linux; a module of its
        // own so that an app that embeds AppLinks on iOS links no NIO.
        .target(
            name: "AppLinksHTTPClient",
            dependencies: [
                "AppLinks", "AppLinksCheck", "MeasurementEvents",
                server("AsyncHTTPClient", package: "async-http-client"),
                server("NIOCore", package: "swift-nio"), server("NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // The click token's form and its reading from a pasteboard URL or install referrer are AppLinks' (the app's
        // library), so that the collector reads a claim's token as the app does.
        .target(name: "HostedLinks", dependencies: ["MeasurementEvents", "AppLinks"], swiftSettings: strict),

        // MARK: SQL embedded in the binary, and the system libraries (module maps only).
        // The EmbedSQL plugin embeds each module's SQL in its code (a lone copied `alstats` binary still migrates and
        // runs its queries): the schema from the top-level Migrations/, the queries from Queries/, a module's own
        // statements from its Statements/ folder (Plugins/EmbedSQL/EmbedSQL.swift names the folders).
        // EmbeddedSQLFiles is the plugin's runtime, the value every module's embedded files are read as.
        .executableTarget(name: "embed-sql", path: "Plugins/EmbedSQLTool", swiftSettings: strict),
        .plugin(name: "EmbedSQL", capability: .buildTool(), dependencies: ["embed-sql"]),
        .target(name: "EmbeddedSQLFiles", swiftSettings: strict),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Zstandard with a dictionary trained on each database's own events packs the store's long fields
        // (docs/design/storage-layout.md, "Packed fields"); Linux only, as Apple's SDKs ship no libzstd.
        .systemLibrary(
            name: "CZstd", path: "Sources/CZstd", pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // With the `ISAL` trait, ISA-L writes the uploader's gzip batches on Linux at four times zlib's speed and
        // twice libdeflate's, and inflates the collector's bodies at libdeflate's (Sources/CIsal/shim.h); without it,
        // and on Apple platforms, whose SDKs ship no ISA-L, the system zlib does both.
        .systemLibrary(
            name: "CIsal", path: "Sources/CIsal", pkgConfig: "libisal",
            providers: [.apt(["libisal-dev"]), .brew(["isa-l"])]),

        // MARK: The stores: the interface, the ingest engine, the two backends and the one place that knows both.
        // The interface only: the backend protocols, the report source, store locations, the rows both backends
        // write, and the bundled queries (docs/design/architecture.md).
        .target(
            name: "EventStoreInterface", dependencies: ["MeasurementEvents", "EmbeddedSQLFiles"],
            swiftSettings: strict, plugins: ["EmbedSQL"]),
        // NDJSON files read on a thread of their own into a backend's rows, and the generic ingest of any backend.
        .target(
            name: "EventIngest", dependencies: ["EventStoreInterface", "MeasurementEvents"], swiftSettings: strict),
        // The system SQLite's C API behind a small Swift face: the SQLite store and the uploader's outbox use it.
        .target(
            name: "SQLiteSupport", dependencies: ["MeasurementEvents", "EmbeddedSQLFiles", "CSQLite"],
            swiftSettings: strict),
        .target(
            name: "EventStoreSQLite",
            dependencies: [
                "EventStoreInterface", "EventIngest", "SQLiteSupport", "EmbeddedSQLFiles", "MeasurementEvents",
                "CSQLite", .target(name: "CZstd", condition: .when(platforms: [.linux])),
            ],
            exclude: ["Statements"], swiftSettings: strict, plugins: ["EmbedSQL"]),
        // dladdr, for the extension's check that the program loading it uses the same libsqlite3.
        .systemLibrary(name: "CDynamicLinker", path: "Sources/CDynamicLinker"),
        .target(
            name: "AlstatsSQLite", dependencies: ["EventStoreSQLite", "CSQLite", "CDynamicLinker"],
            swiftSettings: strict),
        // The PostgreSQL backend: the same interfaces on postgres-nio. Its SQL (Migrations/postgres/, its
        // Statements/) is embedded like the SQLite backend's.
        .target(
            name: "EventStorePostgres",
            dependencies: [
                "EventStoreInterface", "EventIngest", "EmbeddedSQLFiles", "MeasurementEvents",
                server("PostgresNIO", package: "postgres-nio"), server("Logging", package: "swift-log"),
                server("ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["Statements"], swiftSettings: strict, plugins: ["EmbedSQL"]),
        // The one opener of stores (a file path or a PostgreSQL URL) for the CLI, `alstats serve` and the in-process
        // collector.
        .target(
            name: "StoreOpening",
            dependencies: [
                "EventStoreInterface", "EventIngest", "EventStoreSQLite", "MeasurementEvents",
                server("EventStorePostgres"), server("ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .target(
            name: "EventReport", dependencies: ["EventStoreInterface", "MeasurementEvents"], swiftSettings: strict),

        // MARK: The device side: the uploader and its Linux transport.
        // Its tables are its own: migrated from Migrations/upload/, used through its Statements/ (EmbedSQL). It knows
        // no store: the system SQLite through SQLiteSupport, zlib (ISA-L on Linux) for its gzip bodies, the event
        // model and Foundation, so that an iOS app can embed it, and AppLinks for the deferred link its claim of a
        // click brings back (DeferredLinkClaim).
        .target(
            name: "EventUpload",
            dependencies: [
                "MeasurementEvents", "AppLinks", "SQLiteSupport", "EmbeddedSQLFiles", "CZlib",
                .target(name: "CIsal", condition: .when(platforms: [.linux], traits: ["ISAL"])),
            ],
            exclude: ["Statements"], swiftSettings: strict + urlSession, plugins: ["EmbedSQL"]),
        // The uploader's HTTP transport on AsyncHTTPClient, the default of `alstats push` and `alstats demo` on Linux;
        // a module of its own so that an app that embeds EventUpload on iOS links no NIO.
        .target(
            name: "EventUploadHTTPClient",
            dependencies: [
                "EventUpload", server("AsyncHTTPClient", package: "async-http-client"),
                server("NIOCore", package: "swift-nio"), server("NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),

        // MARK: The server and the command line.
        .target(
            name: "EventServer",
            dependencies: [
                "EventStoreInterface", "EventReport", "MeasurementEvents", "HostedLinks", "StoreOpening",
                server("Hummingbird", package: "hummingbird"),
                // The connection limits wrap Hummingbird's HTTP/1 channel and watch NIO's HTTP/1 decoder.
                server("HummingbirdCore", package: "hummingbird"), server("NIOHTTP1", package: "swift-nio"),
                server("ServiceLifecycle", package: "swift-service-lifecycle"),
                server("Logging", package: "swift-log"), server("Metrics", package: "swift-metrics"),
                server("Prometheus", package: "swift-prometheus"), server("NIOCore", package: "swift-nio"),
                // The alert webhook's posts (AlertWebhook).
                server("AsyncHTTPClient", package: "async-http-client"),
                // gzip bodies are inflated whole, refused whole when cut short: with ISA-L on Linux (twice zlib's
                // speed), with the system zlib elsewhere.
                "CZlib", .target(name: "CIsal", condition: .when(platforms: [.linux], traits: ["ISAL"])),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "alstats",
            dependencies: [
                "MeasurementEvents", "AppLinks", "EventStoreInterface", "EventIngest", "EventStoreSQLite",
                "SQLiteSupport", "EventReport", "HostedLinks", "EventUpload", "StoreOpening",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                server("EventServer"), server("EventUploadHTTPClient"), server("AppLinksHTTPClient"),
                server("AppLinksCheck"), server("Logging", package: "swift-log"),
            ],
            swiftSettings: strict + urlSession),
        // The benchmarks: the links benchmark calibrates its load client on a bare Hummingbird application in the
        // bench itself; the postgres benchmark needs the PostgreSQL backend and its client.
        .executableTarget(
            name: "alstats-bench",
            dependencies: [
                "MeasurementEvents", "EventStoreInterface", "EventIngest", "EventStoreSQLite", "SQLiteSupport",
                "EventReport", "EventUpload", "HostedLinks", "CSQLite",
                server("EventStorePostgres"), server("EventUploadHTTPClient"),
                server("Hummingbird", package: "hummingbird"), server("PostgresNIO", package: "postgres-nio"),
                server("NIOCore", package: "swift-nio"), server("Logging", package: "swift-log"),
            ],
            swiftSettings: strict + urlSession),

        // MARK: Examples: the documentation's Swift snippets (compiled, never run; .ci/docs checks each is here) and
        // an app that uploads.
        .target(
            name: "DocSnippets",
            dependencies: [
                "MeasurementEvents", "AppLinks", "EventStoreInterface", "EventIngest", "EventStoreSQLite",
                "EventReport", "EventUpload", server("EventStorePostgres"), server("AppLinksHTTPClient"),
                server("EventUploadHTTPClient"),
            ],
            path: "Examples/Snippets", swiftSettings: strict + urlSession),
        .executableTarget(
            name: "upload-example",
            dependencies: [
                "EventUpload", "MeasurementEvents",
                .target(name: "EventUploadHTTPClient", condition: .when(platforms: [.linux], traits: ["Server"])),
            ],
            path: "Examples/UploadingApp", swiftSettings: strict + urlSession),

        // MARK: Tests. Each library module has a test target mirroring its folders; alstatsTests runs the built binary.
        // What the test targets share: one runner for the built `alstats`, temporary databases, a loopback HTTP
        // server, the sample events, a report's database and the uploader's helpers. A regular target that only test
        // targets depend on; it sees the modules' package API and never imports one @testable.
        .target(
            name: "TestSupport",
            dependencies: [
                "MeasurementEvents", "AppLinks", "EventStoreInterface", "EventIngest", "EventStoreSQLite",
                "EventUpload",
            ],
            path: "Tests/TestSupport", swiftSettings: strict),
        // A database of its own per test on the PostgreSQL server of ALSTATS_TEST_POSTGRES_URL, and the parity
        // events: for the PostgreSQL backend's tests and the runs of the built binary against PostgreSQL.
        .target(
            name: "PostgresTestSupport",
            dependencies: [
                "EventStoreInterface", "MeasurementEvents", "TestSupport", server("EventStorePostgres"),
                server("PostgresNIO", package: "postgres-nio"), server("Logging", package: "swift-log"),
            ],
            path: "Tests/PostgresTestSupport", swiftSettings: strict),
        .testTarget(
            name: "MeasurementEventsTests", dependencies: ["MeasurementEvents"], exclude: ["Regressions"],
            swiftSettings: strict),
        .testTarget(
            name: "AppLinksTests",
            dependencies: ["AppLinks", "MeasurementEvents", "TestSupport"], exclude: ["Regressions"],
            swiftSettings: strict + urlSession),
        // The checker's rules on their own, and (with the Server trait) against local servers through
        // AppLinksHTTPClient.
        .testTarget(
            name: "AppLinksCheckTests",
            dependencies: [
                "AppLinksCheck", "AppLinks", "MeasurementEvents", "TestSupport", server("AppLinksHTTPClient"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AppLinksHTTPClientTests",
            dependencies: ["AppLinks", "TestSupport", server("AppLinksHTTPClient")], swiftSettings: strict),
        .testTarget(
            name: "HostedLinksTests", dependencies: ["HostedLinks", "AppLinks", "MeasurementEvents", "TestSupport"],
            swiftSettings: strict),
        .testTarget(name: "EmbeddedSQLFilesTests", dependencies: ["EmbeddedSQLFiles"], swiftSettings: strict),
        .testTarget(
            name: "EventStoreInterfaceTests",
            dependencies: ["EventStoreInterface", "EmbeddedSQLFiles", "MeasurementEvents", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "EventIngestTests",
            dependencies: ["EventIngest", "EventStoreInterface", "MeasurementEvents", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "SQLiteSupportTests",
            dependencies: ["SQLiteSupport", "EmbeddedSQLFiles", "MeasurementEvents", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "EventStoreSQLiteTests",
            dependencies: [
                "EventStoreSQLite", "EventStoreInterface", "EventIngest", "SQLiteSupport", "EmbeddedSQLFiles",
                "MeasurementEvents", "CSQLite", "TestSupport",
            ],
            exclude: ["Schema/Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "EventStorePostgresTests",
            dependencies: [
                "EventStoreSQLite", "EventStoreInterface", "EventIngest", "EmbeddedSQLFiles", "EventReport",
                "MeasurementEvents", "TestSupport", "PostgresTestSupport", server("EventStorePostgres"),
                server("PostgresNIO", package: "postgres-nio"), server("Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "StoreOpeningTests",
            dependencies: [
                "StoreOpening", "EventStoreInterface", "EventIngest", "MeasurementEvents", "TestSupport",
                "PostgresTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "EventReportTests",
            dependencies: [
                "EventReport", "EventStoreSQLite", "EventStoreInterface", "EmbeddedSQLFiles", "MeasurementEvents",
                "HostedLinks", "TestSupport",
            ],
            exclude: ["Golden"], swiftSettings: strict),
        .testTarget(
            name: "EventUploadTests",
            dependencies: [
                "EventUpload", "EventStoreSQLite", "EventStoreInterface", "EventIngest", "SQLiteSupport",
                "EmbeddedSQLFiles", "MeasurementEvents", "AppLinks", "TestSupport",
            ],
            exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "EventUploadHTTPClientTests",
            dependencies: ["EventUpload", "MeasurementEvents", "TestSupport", server("EventUploadHTTPClient")],
            swiftSettings: strict),
        .testTarget(
            name: "EventServerTests",
            dependencies: [
                "EventStoreInterface", "EventStoreSQLite", "EventReport", "MeasurementEvents", "HostedLinks",
                "StoreOpening", "TestSupport", server("EventServer"), server("Hummingbird", package: "hummingbird"),
                server("HummingbirdTesting", package: "hummingbird"), server("NIOCore", package: "swift-nio"),
                server("CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: strict),
        // The end-to-end runs of the built `alstats` (and of `upload-example`): a user's commands, exit statuses and
        // output. Serve/, Upload/ and Postgres/ run `alstats serve` and PostgreSQL: the `Server` trait's.
        .testTarget(
            name: "alstatsTests",
            dependencies: [
                "EventStoreSQLite", "EventStoreInterface", "SQLiteSupport", "MeasurementEvents", "TestSupport",
                "EventUpload", "AppLinks", server("EventUploadHTTPClient"), server("EventStorePostgres"),
                "PostgresTestSupport", server("PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strict),
    ]
)
