// swift-tools-version: 6.1
// The project's benchmarks, a package of their own (as swift-nio's are) so that nothing they need is compiled into
// the binary operators deploy. Run from this directory: `swift package benchmark` (all), or
// `swift package --allow-writing-to-package-directory benchmark thresholds check` to hold each one to the targets
// in Thresholds/. Release builds only; the root package is built again here, in release.
import PackageDescription

let package = Package(
    name: "RiderLogisticsBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "RiderLogistics", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
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
        )
    ]
)
