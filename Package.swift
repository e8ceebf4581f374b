// swift-tools-version: 6.1
import PackageDescription

// Every target: `any` spelled out, a file sees only the members of modules it imports itself,
// and imports are internal unless a file says `public import` (or `package import`) because it
// re-exports a module's types in its own API.
let strictSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
  name: "NavState",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "navstate", targets: ["navstate"]),
    .library(name: "NavigationCore", targets: ["NavigationCore"]),
    .library(name: "MicroHTTPServer", targets: ["MicroHTTPServer"]),
    // For apps: a typed client of the v1 API, generated from openapi.yaml, with live state and a
    // NavigationModel to bind a SwiftUI NavigationStack to. `navstate` does not depend on it, so
    // `swift run navstate` builds none of its dependencies.
    .library(name: "NavStateClient", targets: ["NavStateClient"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    // Only for its command-line tool, which regenerates NavStateClient's Generated/ folder.
    .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
    .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
    .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
  ],
  targets: [
    // The C library, seen through a module map and a shim for its variadic calls.
    .systemLibrary(
      name: "CMicroHTTPD",
      pkgConfig: "libmicrohttpd",
      providers: [.apt(["libmicrohttpd-dev"])]
    ),
    // libpq, PostgreSQL's own C client (Debian's libpq-dev), for `--postgres`.
    .systemLibrary(
      name: "CLibPQ",
      pkgConfig: "libpq",
      providers: [.apt(["libpq-dev"])]
    ),
    // The only Swift module that imports CLibPQ: connections with deadlines, parameters and
    // rows in PostgreSQL's binary format.
    .target(name: "PostgresClient", dependencies: ["CLibPQ"], swiftSettings: strictSettings),
    // The only Swift module that imports CMicroHTTPD.
    .target(
      name: "MicroHTTPServer",
      dependencies: ["CMicroHTTPD"],
      swiftSettings: strictSettings
    ),
    .target(name: "NavJSON", swiftSettings: strictSettings),
    .target(
      name: "NavigationCore",
      dependencies: ["NavJSON"],
      resources: [.embedInCode("Resources/demo.json"), .embedInCode("Resources/zumry.json")],
      swiftSettings: strictSettings
    ),
    // The v1 wire format: state, event, graph and migration JSON, times, and Server-Sent Events
    // framing, written once and pure (no status codes, headers, methods or paths).
    .target(
      name: "NavStateWire",
      dependencies: ["NavigationCore", "NavJSON"],
      swiftSettings: strictSettings
    ),
    // Sessions and what happens to them: ids and tokens, the transaction of an operation, the
    // event log, expiry and the memory budget. It speaks no HTTP and knows no files: journaling
    // and event delivery go through protocols (SessionJournal, EventSink).
    .target(
      name: "NavStateEngine",
      dependencies: ["NavigationCore", "NavJSON", "NavStateWire"],
      swiftSettings: strictSettings
    ),
    // The data directory: its lock, journal, snapshots and format; implements SessionJournal.
    .target(
      name: "NavStatePersistence",
      dependencies: ["NavStateEngine", "NavStateWire", "NavigationCore", "NavJSON"],
      swiftSettings: strictSettings
    ),
    // Sessions kept in PostgreSQL (`--postgres`): slots, leases with fencing, grouped commits.
    .target(
      name: "NavStatePostgres",
      dependencies: [
        "PostgresClient", "NavStatePersistence", "NavStateEngine", "NavStateWire", "NavigationCore",
      ],
      swiftSettings: strictSettings
    ),
    // The v1 API: maps HTTP requests to the engine and its answers and refusals back to HTTP.
    .target(
      name: "NavStateAPI",
      dependencies: [
        "NavStateEngine", "NavStateWire", "NavigationCore", "NavJSON", "MicroHTTPServer",
        .product(name: "Logging", package: "swift-log"),
      ],
      // The web client's files, compiled into the binary (read as `PackageResources.app_js`...).
      resources: [
        .embedInCode("WebClient/index.html"), .embedInCode("WebClient/app.css"),
        .embedInCode("WebClient/app.js"), .embedInCode("WebClient/graph.js"),
        .embedInCode("WebClient/qr.js"), .embedInCode("WebClient/favicon.svg"),
      ],
      swiftSettings: strictSettings
    ),
    // The server as one value that owns start and stop order: data directory, HTTP server,
    // timers, snapshots and signals.
    .target(
      name: "NavStateApp",
      dependencies: [
        "NavStateAPI", "NavStateEngine", "NavStatePersistence", "NavStatePostgres", "NavStateWire",
        "NavigationCore", "MicroHTTPServer",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "navstate",
      dependencies: [
        "NavStateApp", "NavStateAPI", "NavStateEngine", "NavStatePersistence", "NavStatePostgres",
        "NavigationCore", "MicroHTTPServer",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSettings
    ),
    // Generated/ is swift-openapi-generator's output for openapi.yaml, committed rather than made
    // by the build plugin: a plugin's tool is built for every build of the package, the quick
    // start's included. Tests/generated-clients/swift-client regenerates it and, in the test
    // command, checks that it is up to date.
    .target(
      name: "NavStateClient",
      dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
      exclude: ["openapi-generator-config.yaml"],
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "core-benchmarks",
      dependencies: ["NavigationCore", "NavJSON", "NavStateEngine", "NavStateWire", "NavStateAPI"],
      path: "Benchmarks/CoreBenchmarks",
      swiftSettings: strictSettings
    ),
    .testTarget(name: "NavJSONTests", dependencies: ["NavJSON"], swiftSettings: strictSettings),
    .testTarget(
      name: "NavStateWireTests",
      dependencies: ["NavStateWire", "NavigationCore", "NavJSON"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "NavigationCoreTests",
      dependencies: ["NavigationCore", "NavJSON"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "MicroHTTPServerTests",
      dependencies: ["MicroHTTPServer", "NavStateTestSupport"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "NavStateEngineTests",
      dependencies: ["NavStateEngine", "NavStateWire", "NavigationCore", "NavJSON"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "NavStatePersistenceTests",
      dependencies: [
        "NavStatePersistence", "NavStateEngine", "NavStateWire", "NavigationCore", "NavJSON",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "NavStatePostgresTests",
      dependencies: ["NavStatePostgres", "PostgresClient"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "NavStateAPITests",
      dependencies: [
        "NavStateAPI", "NavStateEngine", "NavStateWire", "NavigationCore", "NavJSON",
        "MicroHTTPServer", "NavStateTestSupport", "NavStateTesting",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSettings
    ),
    // Starts the real navstate binary on a free port, for the tests that talk HTTP to it, and
    // the raw HTTP client they and MicroHTTPServerTests share.
    .target(
      name: "NavStateTestSupport", path: "Tests/NavStateTestSupport", swiftSettings: strictSettings),
    // The test kit: one client protocol (TestClient) with two backends, the router in process
    // and the application listening in process, and the session helper every suite shares.
    .target(
      name: "NavStateTesting",
      dependencies: [
        "NavStateTestSupport", "NavStateApp", "NavStateAPI", "NavStateEngine", "NavigationCore",
        "NavJSON", "MicroHTTPServer", .product(name: "Logging", package: "swift-log"),
      ],
      path: "Tests/NavStateTesting",
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "NavStateAppTests",
      dependencies: [
        "NavStateApp", "NavStateTestSupport", .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "NavStateIntegrationTests",
      dependencies: [
        "NavJSON", "NavStateTestSupport", "NavStateTesting", "NavStateApp", "NavStateEngine",
        "navstate",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "NavStateClientTests",
      dependencies: [
        "NavStateClient", "NavStateTestSupport", "navstate",
        .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
      ],
      swiftSettings: strictSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
