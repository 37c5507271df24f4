import ArgumentParser
import Foundation
import LogisticsCore
import RoadFixtures
import RoadRouting

struct RoutingBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routing",
        abstract: "Import/preprocessing time, graph memory and query latency, CH against plain Dijkstra, on Monaco and "
            + "a generated grid road network.")

    @Option(help: "The OpenStreetMap extract to measure.") var map: String = "Maps/monaco.osm.pbf"
    @Option(help: "Side of the generated grid (side² nodes); 0 skips it.") var gridSide: Int = 1000
    @Option(help: "Random pairs for CH queries.") var pairs: Int = 10_000
    @Option(help: "Random pairs for plain Dijkstra on the map (the same pairs, first N).") var dijkstraPairs: Int =
        10_000
    @Option(help: "Random pairs for plain Dijkstra on the grid (each takes ~a second there).")
    var gridDijkstraPairs: Int = 100
    @Option(help: "Requests to GET /api/v1/routes on an in-process server; 0 skips it.") var apiRequests: Int = 2_000
    @Option(help: "Clients sending them at once; each count is measured in turn.") var apiConcurrency: [Int] = [1, 4]
    @Option(name: .customLong("database-url"), help: "PostgreSQL with pgRouting: also time pgr_dijkstra on the map.")
    var databaseURL: String?
    @Option(help: "Pairs for pgr_dijkstra (each loads the whole edge table).") var pgroutingPairs: Int = 200
    @Option(help: "An osrm-routed (host:port) to send the same route requests to, taking turns with ours.")
    var osrm: String?
    @Option(help: "Times each client count is measured (on each server).") var apiRounds: Int = 1

    func validate() throws {
        guard gridSide == 0 || (10...2000).contains(gridSide) else {
            throw ValidationError("--grid-side must be 0 or 10...2000")
        }
        guard (1...1_000_000).contains(pairs) else { throw ValidationError("--pairs must be 1...1000000") }
        guard !apiConcurrency.isEmpty, apiConcurrency.allSatisfy({ (1...64).contains($0) }) else {
            throw ValidationError("--api-concurrency must be 1...64 (repeat it for several counts)")
        }
        guard (1...20).contains(apiRounds) else { throw ValidationError("--api-rounds must be 1...20") }
        if let osrm, osrmPeer(osrm) == nil { throw ValidationError("--osrm must be host:port, as 127.0.0.1:5000") }
    }

    func run() async throws {
        Console.line(
            "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB"
        )
        do {
            let roadMap = try measureMap()
            if let databaseURL {
                let nodes = roadMap.graph.routableNodes
                var random = SeededGenerator(state: 7)
                let pairs = (0..<pgroutingPairs).map { _ in
                    (nodes.randomElement(using: &random)!, nodes.randomElement(using: &random)!)
                }
                try await PgRoutingComparison.measure(roadMap: roadMap, databaseURL: databaseURL, pairs: pairs)
            }
            if apiRequests > 0 {
                try await RouteAPILoad.measure(
                    map: map, requests: apiRequests, concurrency: apiConcurrency, rounds: apiRounds,
                    osrm: osrm.flatMap(osrmPeer))
            }
            if gridSide > 0 { measureGrid() }
        } catch let error as MapImportError {
            throw Console.failure(error.description)
        }
    }

    private func osrmPeer(_ address: String) -> RouteAPILoad.Peer? {
        let parts = address.split(separator: ":")
        guard parts.count == 2, let port = Int(parts[1]), (1...65535).contains(port) else { return nil }
        return RouteAPILoad.Peer(host: String(parts[0]), port: port)
    }

    private func measureMap() throws(MapImportError) -> RoadMap {
        Console.line("== \(map) (motorcycle profile)")
        let rssBefore = ResidentMemory.bytes()
        let importStart = Date()
        let (graph, _) = try MapImporter.importGraph(
            pbf: try PBFReader(path: map), profile: RoutingProfile(.motorcycle))
        let importSeconds = Date().timeIntervalSince(importStart)
        let contractStart = Date()
        let roadMap = RoadMap.prepare(graph: graph)
        let contractSeconds = Date().timeIntervalSince(contractStart)
        Console.line(
            String(
                format:
                    "import %.2f s, contraction (both metrics) %.2f s, %d nodes, %d arcs, graph + hierarchies %.1f MiB, RSS +%.0f MiB",
                importSeconds, contractSeconds, graph.nodeCount, graph.arcCount,
                Double(roadMap.memoryBytes) / 1_048_576, Double(ResidentMemory.bytes() - rssBefore) / 1_048_576))
        compare(roadMap, pairs: pairs, dijkstraPairs: dijkstraPairs, metrics: [.time, .distance])

        // The whole built-in route call: snapping, search, narration, encoding of steps and geometry.
        let planner = RoutePlanner(map: roadMap)
        var random = SeededGenerator(state: 11)
        let nodes = graph.routableNodes
        var latencies: [Double] = []
        for _ in 0..<min(pairs, 2_000) {
            let from = graph.coordinate(nodes.randomElement(using: &random)!)
            let to = graph.coordinate(nodes.randomElement(using: &random)!)
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try? planner.route(RouteRequest(from: from, to: to), now: Date())
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        Console.line("full route (snap + CH + steps) over \(latencies.count) pairs: \(Self.summary(latencies))")
        measureFile(roadMap)
        return roadMap
    }

    private func measureGrid() {
        Console.line("== generated grid \(gridSide)×\(gridSide) (\(gridSide * gridSide) nodes)")
        let rssBefore = ResidentMemory.bytes()
        let generateStart = Date()
        let graph = GridRoadNetwork.generate(side: gridSide)
        let generateSeconds = Date().timeIntervalSince(generateStart)
        let contractStart = Date()
        var lastDecile = -1
        let hierarchy = ContractionHierarchy.build(graph: graph, metric: .time) { fraction in
            let decile = Int(fraction * 10)
            if decile != lastDecile {
                lastDecile = decile
                Console.line("  contracting \(decile * 10)%")
            }
        }
        let contractSeconds = Date().timeIntervalSince(contractStart)
        let roadMap = RoadMap(graph: graph, hierarchies: [.time: hierarchy])
        Console.line(
            String(
                format:
                    "generate %.1f s, contraction (fastest routes) %.1f s, %d arcs, %d shortcuts, graph + hierarchy %.0f MiB, RSS +%.0f MiB",
                generateSeconds, contractSeconds, graph.arcCount, hierarchy.shortcutCount,
                Double(roadMap.memoryBytes) / 1_048_576, Double(ResidentMemory.bytes() - rssBefore) / 1_048_576))
        compare(roadMap, pairs: pairs, dijkstraPairs: gridDijkstraPairs, metrics: [.time])
        measureFile(roadMap)
    }

    /// Saving and loading the prepared graph file, which is what a server start costs after the first import.
    private func measureFile(_ roadMap: RoadMap) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID()).graph").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let writeStart = Date()
            try RoadMapFile.write(roadMap, to: path)
            let writeSeconds = Date().timeIntervalSince(writeStart)
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            let readStart = Date()
            let loaded = try RoadMapFile.read(from: path)
            Console.line(
                String(
                    format:
                        "  graph file: %.1f MiB, written in %.2f s, loaded (checksum, bounds checks, index) in %.2f s (%d nodes)",
                    Double(size) / 1_048_576, writeSeconds, Date().timeIntervalSince(readStart), loaded.graph.nodeCount)
            )
        } catch {
            Console.line("  graph file: \(error)")
        }
    }

    /// CH and Dijkstra on the same random pairs; also checks they agree.
    private func compare(_ roadMap: RoadMap, pairs: Int, dijkstraPairs: Int, metrics: [RouteMetric] = [.time]) {
        let queries = Self.randomPairs(roadMap.graph, count: pairs)
        for metric in metrics {
            let (chLatencies, chCosts) = Self.timeQueries(roadMap.hierarchies[metric]!, queries)
            let dijkstra = DijkstraSearch(graph: roadMap.graph, metric: metric)
            var dijkstraLatencies: [Double] = []
            var disagreements = 0
            for (index, (source, target)) in queries.prefix(dijkstraPairs).enumerated() {
                let start = DispatchTime.now().uptimeNanoseconds
                let path = dijkstra.shortestPath(
                    from: [SearchSeed(node: source, cost: 0)], to: [SearchSeed(node: target, cost: 0)])
                dijkstraLatencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                if path?.cost != chCosts[index] { disagreements += 1 }
            }
            let chMedian = LatencyRecorder.percentile(chLatencies.sorted(), 0.5)
            let dijkstraMedian = LatencyRecorder.percentile(dijkstraLatencies.sorted(), 0.5)
            Console.line("  CH       \(metric.rawValue) over \(chLatencies.count) pairs: \(Self.summary(chLatencies))")
            Console.line(
                "  Dijkstra \(metric.rawValue) over \(dijkstraLatencies.count) pairs: \(Self.summary(dijkstraLatencies))"
            )
            Console.line(
                String(
                    format: "  speed-up at p50: %.0f×; CH and Dijkstra disagree on %d of %d pairs",
                    dijkstraMedian / max(chMedian, 1e-6),
                    disagreements, dijkstraLatencies.count))
        }
    }

    /// The same seeded pairs of routable nodes on every run, so runs compare.
    static func randomPairs(_ graph: RoadGraph, count: Int) -> [(Int32, Int32)] {
        let nodes = graph.routableNodes
        var random = SeededGenerator(state: 7)
        return (0..<count).map { _ in (nodes.randomElement(using: &random)!, nodes.randomElement(using: &random)!) }
    }

    /// One hierarchy query per pair, each timed once in milliseconds, with the cost it found.
    static func timeQueries(_ hierarchy: ContractionHierarchy, _ queries: [(Int32, Int32)]) -> (
        latencies: [Double], costs: [UInt64?]
    ) {
        compareQueries([hierarchy], queries, rounds: 1)[0]
    }

    /// Times the same queries on several hierarchies, interleaved query by query (in a rotating order) and
    /// repeated `rounds` times, keeping each query's fastest time per hierarchy. Run one after the other, the
    /// second set met other cache and clock states than the first: on the grid two identical runs differed by 20 %.
    static func compareQueries(
        _ hierarchies: [ContractionHierarchy], _ queries: [(Int32, Int32)], rounds: Int = 3
    ) -> [(latencies: [Double], costs: [UInt64?])] {
        let searches = hierarchies.map { HierarchyQuery(hierarchy: $0) }
        var fastest = [[Double]](
            repeating: [Double](repeating: .infinity, count: queries.count), count: hierarchies.count)
        var costs = [[UInt64?]](repeating: [UInt64?](repeating: nil, count: queries.count), count: hierarchies.count)
        for round in 0..<rounds {
            for (index, (source, target)) in queries.enumerated() {
                for turn in 0..<searches.count {
                    let which = (turn + index + round) % searches.count
                    let start = DispatchTime.now().uptimeNanoseconds
                    let path = searches[which].shortestPath(
                        from: [SearchSeed(node: source, cost: 0)], to: [SearchSeed(node: target, cost: 0)])
                    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                    fastest[which][index] = min(fastest[which][index], elapsed)
                    costs[which][index] = path?.cost
                }
            }
        }
        return (0..<hierarchies.count).map { (fastest[$0], costs[$0]) }
    }

    static func summary(_ milliseconds: [Double]) -> String {
        let sorted = milliseconds.sorted()
        return String(
            format: "p50 %.3f ms, p95 %.3f ms, p99 %.3f ms, max %.3f ms", LatencyRecorder.percentile(sorted, 0.5),
            LatencyRecorder.percentile(sorted, 0.95), LatencyRecorder.percentile(sorted, 0.99), sorted.last ?? 0)
    }
}

/// The process's resident set size from /proc (Linux); 0 elsewhere.
enum ResidentMemory {
    static func bytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kilobytes * 1024
    }
}
