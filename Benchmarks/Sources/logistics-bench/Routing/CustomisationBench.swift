import ArgumentParser
import Foundation
import LogisticsCore
import RoadFixtures
import RoadRouting

struct CustomisationBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "customisation",
        abstract: "Customisable hierarchy against the static one in the same run: preparation, re-customisation time "
            + "for new speeds, memory, and query latency before and after, on Monaco and a generated grid.")

    @Option(help: "The OpenStreetMap extract to measure.") var map: String = "Maps/monaco.osm.pbf"
    @Option(help: "Side of the generated grid (side² nodes); 0 skips it.") var gridSide: Int = 1000
    @Option(help: "Random pairs for queries.") var pairs: Int = 10_000
    @Option(help: "Customisations to time on the map (the grid gets a third as many, at least 2).") var runs: Int = 10
    @Flag(help: "Also measure the nested-dissection order that was not chosen (grids only up to 300×300).")
    var dissection = false
    @Option(help: "Re-contraction only: the share of the order, from the top, ordered again for the new weights.")
    var reorderedTop: Double = TrafficCustomiser.defaultReorderedTop
    @Flag(help: "Also contract the jammed weights in a new order, to show what keeping the order costs queries.")
    var fresh = false

    func validate() throws {
        guard gridSide == 0 || (10...2000).contains(gridSide) else {
            throw ValidationError("--grid-side must be 0 or 10...2000")
        }
        guard (1...1_000_000).contains(pairs) else { throw ValidationError("--pairs must be 1...1000000") }
        guard (0...1).contains(reorderedTop) else { throw ValidationError("--reordered-top must be 0...1") }
        guard (1...100).contains(runs) else { throw ValidationError("--runs must be 1...100") }
    }

    func run() async throws {
        Console.line(
            "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB"
        )
        do throws(MapImportError) {
            Console.line("== \(map) (motorcycle profile)")
            let (graph, _) = try MapImporter.importGraph(
                pbf: try PBFReader(path: map), profile: RoutingProfile(.motorcycle))
            measure(graph, runs: runs, dijkstraPairs: pairs)
        } catch {
            throw Console.failure(error.description)
        }
        if gridSide > 0 {
            Console.line("== generated grid \(gridSide)×\(gridSide) (\(gridSide * gridSide) nodes)")
            measure(GridRoadNetwork.generate(side: gridSide), runs: max(2, runs / 3), dijkstraPairs: 20)
        }
    }

    private func measure(_ graph: RoadGraph, runs: Int, dijkstraPairs: Int) {
        Console.line("  static hierarchy: contracting…")
        let (prepared, staticSeconds) = Self.timed { ContractionHierarchy.build(graph: graph, metric: .time) }
        let map = RoadMap(graph: graph, hierarchies: [.time: prepared])
        Console.line(
            String(
                format: "  static hierarchy: contraction %.2f s, %d shortcuts, %.1f MiB", staticSeconds,
                prepared.shortcutCount, Double(prepared.memoryBytes) / 1_048_576))
        let (customiser, prepareSeconds) = Self.timed { TrafficCustomiser(map: map, reorderedTop: reorderedTop)! }
        Console.line(
            String(
                format: "  customiser: %@, prepared in %.2f s (order kept from the static hierarchy%@)%@",
                customiser.method.rawValue, prepareSeconds,
                customiser.method == .recontraction
                    ? String(format: ", its top %g %% ordered again", customiser.reorderedTop * 100) : "",
                customiser.structureEdges.map { ", \($0) edges, \(customiser.structureBytes / 1024) KiB" } ?? ""))

        let now = Date()
        let (_, freeFlowSeconds) = Self.timed { customiser.customise(now: now) }
        Console.line(String(format: "  re-customisation without live speeds: %.3f s", freeFlowSeconds))
        let jammed = Self.jam(map, now: now)
        Console.line("  traffic: \(jammed) of \(graph.arcCount) arcs 1.5–5× slower (live observations)")
        var seconds: [Double] = []
        var snapshot: RoutingSnapshot?
        for _ in 0..<runs {
            let (installed, elapsed) = Self.timed { customiser.customise(now: now) }
            seconds.append(elapsed)
            snapshot = installed
        }
        let sorted = seconds.sorted()
        Console.line(
            String(
                format:
                    "  re-customisation (weights from live speeds + %@ + swap) over %d runs: p50 %.3f s, max %.3f s",
                customiser.method.rawValue, runs, LatencyRecorder.percentile(sorted, 0.5), sorted.last ?? 0))
        Console.line(
            String(
                format: "  memory added: customised hierarchy %.1f MiB + arc weights %.1f MiB + structure %.1f MiB",
                Double(snapshot!.hierarchy.memoryBytes) / 1_048_576, Double(graph.arcCount * 4) / 1_048_576,
                Double(customiser.structureBytes) / 1_048_576))

        let queries = RoutingBench.randomPairs(graph, count: pairs)
        let runs = RoutingBench.compareQueries([prepared, snapshot!.hierarchy], queries)
        let (staticRun, trafficRun) = (runs[0], runs[1])
        Console.line(
            "  static hierarchy, free flow over \(queries.count) pairs: \(RoutingBench.summary(staticRun.latencies))")
        Console.line(
            "  customised, with traffic over \(queries.count) pairs:   \(RoutingBench.summary(trafficRun.latencies))")
        let changed = zip(staticRun.costs, trafficRun.costs).count { $0 != $1 }
        Console.line(
            String(
                format: "  query p50 customised / static: %.2f×; %d of %d routes cost more with traffic",
                Self.medianRatio(trafficRun.latencies, over: staticRun.latencies), changed, queries.count))
        if fresh {
            let (hierarchy, seconds) = Self.timed {
                ContractionHierarchy.build(
                    graph: graph, weights: snapshot!.weights, ranks: HierarchyOrder.ranks(of: prepared), metric: .time,
                    reorderedTop: 1)
            }
            let runs = RoutingBench.compareQueries([prepared, hierarchy], queries)
            Console.line(
                String(
                    format:
                        "  a new order for the traffic instead: contraction %.2f s, %d shortcuts; queries %.2f× static",
                    seconds, hierarchy.shortcutCount, Self.medianRatio(runs[1].latencies, over: runs[0].latencies)))
        }
        if dissection && graph.nodeCount <= 90_000 {
            let (structure, seconds) = Self.timed { CustomisableHierarchy.build(graph: graph) }
            let hierarchy = structure.customise(weights: snapshot!.weights, metric: .time)
            let runs = RoutingBench.compareQueries([prepared, hierarchy], queries)
            Console.line(
                String(
                    format:
                        "  nested dissection instead: order + structure %.2f s, %d edges, %d triangles; queries p50 %.3f ms (%.2f× static), %d costs differ",
                    seconds, structure.edgeCount, structure.triangleCount,
                    LatencyRecorder.percentile(runs[1].latencies.sorted(), 0.5),
                    Self.medianRatio(runs[1].latencies, over: runs[0].latencies),
                    zip(runs[1].costs, trafficRun.costs).count { $0 != $1 }))
        }
        let dijkstra = DijkstraSearch(graph: graph, weights: snapshot!.weights)
        var wrong = 0
        for (index, (source, target)) in queries.prefix(dijkstraPairs).enumerated() {
            let expected = dijkstra.shortestPath(
                from: [SearchSeed(node: source, cost: 0)], to: [SearchSeed(node: target, cost: 0)])
            if expected?.cost != trafficRun.costs[index] { wrong += 1 }
        }
        Console.line(
            "  Dijkstra on the traffic weights disagrees on \(wrong) of \(min(dijkstraPairs, queries.count)) pairs")
    }

    /// A rush hour the order was never chosen for: a tenth of the arcs observed 1.5–5× slower than free flow.
    static func jam(_ map: RoadMap, now: Date) -> Int {
        var random = SeededGenerator(state: 5)
        var jammed = 0
        for arc in 0..<map.graph.arcCount where Double.random(in: 0...1, using: &random) < 0.1 {
            let freeFlow = Double(map.graph.arcDistanceM[arc]) / Double(max(map.graph.arcDurationS[arc], 0.001))
            map.traffic.record(
                arc: arc, metresPerSecond: freeFlow / Double.random(in: 1.5...5, using: &random), observedAt: now)
            jammed += 1
        }
        return jammed
    }

    /// How many times slower `run`'s median query is than `base`'s.
    static func medianRatio(_ run: [Double], over base: [Double]) -> Double {
        LatencyRecorder.percentile(run.sorted(), 0.5) / max(LatencyRecorder.percentile(base.sorted(), 0.5), 1e-9)
    }

    static func timed<T>(_ work: () -> T) -> (T, Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let value = work()
        return (value, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
}
