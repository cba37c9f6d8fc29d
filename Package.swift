// swift-tools-version: 6.2
// alstats: an App Links analytics pipeline (event bus, SQLite store, report, CLI).

import PackageDescription

/// Settings shared by every target of ours: Swift 6 mode (from the tools version) and no warnings.
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error)
]

let package = Package(
    name: "alstats",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MeasurementEvents", targets: ["MeasurementEvents"]),
        .library(name: "AppLinks", targets: ["AppLinks"]),
        .library(name: "EventStore", targets: ["EventStore"]),
        .library(name: "EventReport", targets: ["EventReport"]),
        .library(name: "HostedLinks", targets: ["HostedLinks"]),
        .library(name: "EventUpload", targets: ["EventUpload"]),
        .executable(name: "alstats", targets: ["alstats"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        .target(name: "MeasurementEvents", swiftSettings: strict),
        .target(name: "AppLinks", dependencies: ["MeasurementEvents"], swiftSettings: strict),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "EventStore", dependencies: ["MeasurementEvents", "CSQLite"], swiftSettings: strict),
        .target(name: "EventReport", dependencies: ["EventStore", "MeasurementEvents"], swiftSettings: strict),
        .target(name: "HostedLinks", dependencies: ["MeasurementEvents"], swiftSettings: strict),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "EventUpload", dependencies: ["MeasurementEvents", "EventStore", "CZlib"], swiftSettings: strict),
        .executableTarget(
            name: "alstats",
            dependencies: [
                "MeasurementEvents",
                "AppLinks",
                "EventStore",
                "EventReport",
                "HostedLinks",
                "EventUpload",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "alstats-bench", dependencies: ["MeasurementEvents", "EventStore", "EventReport", "CSQLite"],
            swiftSettings: strict),
        .testTarget(name: "MeasurementEventsTests", dependencies: ["MeasurementEvents"], swiftSettings: strict),
        .testTarget(
            name: "AppLinksTests",
            dependencies: ["AppLinks", "MeasurementEvents"],
            exclude: ["Regressions"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "EventStoreTests", dependencies: ["EventStore", "MeasurementEvents", "CSQLite"],
            exclude: ["Regressions", "Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "EventReportTests", dependencies: ["EventReport", "EventStore", "MeasurementEvents"],
            exclude: ["Golden"], swiftSettings: strict),
        .testTarget(
            name: "EventUploadTests", dependencies: ["EventUpload", "EventStore", "MeasurementEvents"],
            swiftSettings: strict),
        .testTarget(
            name: "HostedLinksTests", dependencies: ["HostedLinks", "AppLinks", "MeasurementEvents"],
            swiftSettings: strict),
    ]
)
