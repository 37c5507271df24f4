// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "RiderLogistics",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "logistics", targets: ["logistics"]),
        .library(name: "LogisticsCore", targets: ["LogisticsCore"]),
        .library(name: "LogisticsServer", targets: ["LogisticsServer"]),
        .library(name: "LogisticsStore", targets: ["LogisticsStore"]),
        .library(name: "RoadRouting", targets: ["RoadRouting"]),
        .library(name: "RiderKit", targets: ["RiderKit"]),
        .library(name: "RiderKitURLSession", targets: ["RiderKitURLSession"]),
        // Simulated riders' city and rush hours, for the demo, the simulator and the benchmarks.
        .library(name: "CitySimulation", targets: ["CitySimulation"]),
        // Servers in-process or as processes, throwaway PostgreSQL schemas: for the tests and the Benchmarks package.
        .library(name: "TestSupport", targets: ["TestSupport"]),
        // Generated road grids and map-matching checks, for the routing tests and benchmarks.
        .library(name: "RoadFixtures", targets: ["RoadFixtures"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // Already built for Hummingbird; named because sockets write a close frame to their channel directly.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Already built for Hummingbird; named because sockets are served on the event loop, with our own upgrade
        // channel and its HTTP/1 codecs.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // Already built for AsyncHTTPClient; named so APNs can trust a configured CA.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Already built for JWTKit; named because the demo makes its own certificate for phones on the network.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    ],
    targets: [
        // CPU-bound work on a thread of its own, off Swift's cooperative pool (map imports, plans, matrices).
        .target(name: "Threads"),
        // The domain: no I/O, no server framework.
        .target(
            name: "LogisticsCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        // Route optimisation (VRP) on a travel-time matrix: no I/O, no dependencies. Optimised in debug builds too:
        // its search runs for a time budget, and unoptimised it makes much worse plans in the same time, in tests and
        // CI's comparison with VROOM and PyVRP.
        .target(name: "RoutePlanning", swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // OpenStreetMap import, road graph, contraction hierarchies, route narration, live speeds. No server code.
        // Optimised in debug builds too: unoptimised, importing and contracting maps in the tests held both of a
        // 2-core machine's cooperative threads for many seconds, and timing tests elsewhere in the run waited on them.
        .target(
            name: "RoadRouting",
            dependencies: [
                "LogisticsCore",
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]
        ),
        .target(
            name: "LogisticsStore",
            dependencies: [
                "LogisticsCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "LogisticsServer",
            dependencies: [
                "LogisticsCore",
                "LogisticsStore",
                "RoadRouting",
                "RoutePlanning",
                "Threads",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            // The OpenAPI document's root and feature fragments: real files, embedded in the binary by the plugin
            // below with the pages' HTML, CSS, scripts and icons (the top-level Web/ folder).
            exclude: [
                "HTTP/OpenAPI/openapi.json", "Delivery/openapi.json",
                "Navigation/openapi.json",
                "Dispatch/openapi.json", "Notifications/openapi.json", "Offers/openapi.json", "Operations/openapi.json",
                "Orders/openapi.json",
                "Riders/openapi.json", "Tracking/openapi.json", "Web/openapi.json", "People/openapi.json",
                "SignIn/openapi.json", "Notifications/TextMessages/openapi.json",
            ],
            plugins: ["EmbedWebAssets"]
        ),
        .executableTarget(name: "EmbedWebAssetsTool"),
        .plugin(name: "EmbedWebAssets", capability: .buildTool(), dependencies: ["EmbedWebAssetsTool"]),
        // The rider app's logic (offline queue, accept retry, arrival check, navigation), for apps and the simulator.
        .target(
            name: "RiderKit",
            dependencies: [
                "LogisticsCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // RiderKit over URLSession, for apps; apart so the server binary does not link FoundationNetworking.
        .target(name: "RiderKitURLSession", dependencies: ["RiderKit"]),
        .target(name: "CitySimulation", dependencies: ["LogisticsCore"]),
        .executableTarget(
            name: "logistics",
            dependencies: [
                "LogisticsServer",
                "RoadRouting",
                "RiderKit",
                "CitySimulation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "LogisticsCoreTests",
            dependencies: ["LogisticsCore", .product(name: "Crypto", package: "swift-crypto")]),
        // Seeded byte mutations shared by the parser fuzz tests of the server and of the map importer.
        .target(name: "FuzzSupport", path: "Tests/FuzzSupport"),
        // A generated road grid (a million nodes without a large file) and the map matcher's accuracy check.
        .target(name: "RoadFixtures", dependencies: ["RoadRouting", "LogisticsCore"], path: "Tests/RoadFixtures"),
        .testTarget(
            name: "RoadRoutingTests",
            dependencies: [
                "RoadRouting", "LogisticsCore", "FuzzSupport", "Threads", "RoadFixtures",
                // To inflate a real block of the Monaco extract and damage it past the zlib checksum.
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            exclude: ["Fixtures"]
        ),
        // What the server, store and RiderKit tests share: a server built in-process or run as a process, on
        // SQLite or PostgreSQL, with fake push providers and the Monaco map; HTTP, socket and TLS clients.
        .target(
            name: "TestSupport",
            dependencies: [
                "LogisticsServer",
                "RoadRouting",
                "Threads",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                // The TLS tests look at which certificate the server presents, with a client of their own.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "LogisticsServerTests",
            dependencies: [
                "LogisticsServer", "TestSupport", "FuzzSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                // The loop-served socket is tested on an embedded channel, frame by frame.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "RoutePlanningTests", dependencies: ["RoutePlanning", "LogisticsCore", "Threads"]),
        .testTarget(name: "LogisticsStoreTests", dependencies: ["LogisticsStore", "LogisticsServer", "TestSupport"]),
        .testTarget(name: "RiderKitTests", dependencies: ["RiderKit", "RiderKitURLSession", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
