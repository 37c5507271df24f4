// swift-tools-version: 6.1
// The project's benchmarks, a package of their own (as swift-nio's are) so that nothing they need is compiled into
// the binary operators deploy. Two kinds:
// - `logistics-bench`: load against real servers on localhost (deliveries, tracking, dispatch, routing, ETA, soak,
//   sign-in), each printing its figures. `swift build -c release --package-path Benchmarks --product logistics
//   --product logistics-bench`, then `Benchmarks/.build/release/logistics-bench --help`.
// - ordo-one benchmarks (Benchmarks/RequestCost): `swift package benchmark` from this directory, or
//   `swift package --allow-writing-to-package-directory benchmark thresholds check` to hold each one to the targets
//   in Thresholds/.
// The Python and C peers (VROOM, PyVRP, OSRM, a loopback floor) and the browser benches are beside them.
import PackageDescription

let package = Package(
    name: "RiderLogisticsBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "RiderLogistics", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "logistics-bench",
            dependencies: [
                .product(name: "LogisticsServer", package: "RiderLogistics"),
                .product(name: "LogisticsCore", package: "RiderLogistics"),
                .product(name: "LogisticsStore", package: "RiderLogistics"),
                .product(name: "RoadRouting", package: "RiderLogistics"),
                .product(name: "RiderKit", package: "RiderLogistics"),
                .product(name: "CitySimulation", package: "RiderLogistics"),
                .product(name: "TestSupport", package: "RiderLogistics"),
                .product(name: "RoadFixtures", package: "RiderLogistics"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/logistics-bench"
        ),
        // What one request costs the server, answered in-process (no socket): the bad-input paths an attacker
        // can make expensive.
        .executableTarget(
            name: "RequestCost",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "LogisticsServer", package: "RiderLogistics"),
                .product(name: "LogisticsCore", package: "RiderLogistics"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Benchmarks/RequestCost",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
