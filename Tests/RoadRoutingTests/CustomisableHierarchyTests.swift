import Foundation
import LogisticsCore
import RoadFixtures
import RoadRouting
import Synchronization
import Testing
import Threads

extension RoadRoutingSuites {
    @Suite("Customisable contraction hierarchies")
    struct CustomisableHierarchyTests {
        @Test("Profile weights: the customised hierarchy equals plain Dijkstra and the static hierarchy")
        func profileWeights() async throws {
            let map = await MonacoFixture.motorcycle
            let (mismatches, brokenPaths, staticMismatches) = await OwnThread.run {
                let customisable = CustomisableHierarchy.build(graph: map.graph)
                let weights = map.weights[.time]!
                let hierarchy = customisable.customise(weights: weights, metric: .time)
                let check = HierarchyTests.compare(
                    graph: map.graph, hierarchy: hierarchy, weights: weights, pairs: 500)
                let againstStatic = Self.costDifferences(
                    map.graph, hierarchy, map.hierarchies[.time]!, pairs: 500)
                return (check.mismatches, check.brokenPaths, againstStatic)
            }
            #expect(brokenPaths.isEmpty, "\(brokenPaths.prefix(5))")
            #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
            #expect(staticMismatches.isEmpty, "\(staticMismatches.prefix(5))")
        }

        @Test("Traffic weights: every arc slowed at random, routes follow the new weights exactly")
        func trafficWeights() async throws {
            let map = await MonacoFixture.motorcycle
            let (mismatches, brokenPaths, changedRoutes) = await OwnThread.run {
                let customisable = CustomisableHierarchy.build(graph: map.graph)
                var generator = SeededGenerator(state: 5)
                // Some streets jammed (up to 20× slower), most a little slower: the order was never chosen for
                // these weights, which is the point.
                let weights = map.weights[.time]!.map { weight in
                    let factor =
                        Double.random(in: 0...1, using: &generator) < 0.1
                        ? Double.random(in: 2...20, using: &generator)
                        : Double.random(in: 1...1.5, using: &generator)
                    return UInt32(Double(weight) * factor)
                }
                let hierarchy = customisable.customise(weights: weights, metric: .time)
                let check = HierarchyTests.compare(
                    graph: map.graph, hierarchy: hierarchy, weights: weights, pairs: 500)
                let changed = Self.costDifferences(map.graph, hierarchy, map.hierarchies[.time]!, pairs: 200)
                return (check.mismatches, check.brokenPaths, changed.count)
            }
            #expect(brokenPaths.isEmpty, "\(brokenPaths.prefix(5))")
            #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
            // The new weights must matter: most routes' costs differ from the free-flow hierarchy's.
            #expect(changedRoutes > 100)
        }

        @Test("A generated grid with one-way streets and missing links, customised twice")
        func gridTwice() async throws {
            let (results, edgeCount, bandedEdgeCount) = await OwnThread.run {
                let graph = GridRoadNetwork.generate(side: 40, seed: 9)
                let customisable = CustomisableHierarchy.build(graph: graph)
                var generator = SeededGenerator(state: 3)
                let free = graph.weights(.time)
                let jammed = free.map { $0 * UInt32.random(in: 1...8, using: &generator) }
                let results = [free, jammed].map { weights in
                    HierarchyTests.compare(
                        graph: graph, hierarchy: customisable.customise(weights: weights, metric: .time),
                        weights: weights, pairs: 300)
                }
                let banded = CustomisableHierarchy(graph: graph, ranks: (0..<Int32(graph.nodeCount)).map { $0 })!
                return (results, customisable.edgeCount, banded.edgeCount)
            }
            for result in results {
                #expect(result.brokenPaths.isEmpty, "\(result.brokenPaths.prefix(5))")
                #expect(result.mismatches.isEmpty, "\(result.mismatches.prefix(5))")
            }
            // Nested dissection keeps the fill small: the row-by-row order of the nodes needs over twice as many.
            #expect(edgeCount * 2 < bandedEdgeCount)
        }

        @Test("The order is a permutation of the nodes")
        func orderIsPermutation() async {
            let map = await MonacoFixture.motorcycle
            let ranks = await OwnThread.run { DissectionOrder.ranks(graph: map.graph) }
            #expect(Set(ranks).count == map.graph.nodeCount)
            #expect(ranks.min() == 0 && ranks.max() == Int32(map.graph.nodeCount - 1))
        }

        /// Pairs whose costs differ between two hierarchies on the same graph.
        static func costDifferences(
            _ graph: RoadGraph, _ a: ContractionHierarchy, _ b: ContractionHierarchy, pairs: Int
        ) -> [String] {
            let nodes = graph.routableNodes
            var generator = SeededGenerator(state: 77)
            var differences: [String] = []
            for _ in 0..<pairs {
                let seeds = (
                    [SearchSeed(node: nodes.randomElement(using: &generator)!, cost: 0)],
                    [SearchSeed(node: nodes.randomElement(using: &generator)!, cost: 0)]
                )
                let first = HierarchyQuery(hierarchy: a).shortestPath(from: seeds.0, to: seeds.1)?.cost
                let second = HierarchyQuery(hierarchy: b).shortestPath(from: seeds.0, to: seeds.1)?.cost
                if first != second {
                    differences.append("\(seeds): \(String(describing: first)) vs \(String(describing: second))")
                }
            }
            return differences
        }
    }
}

extension RoadRoutingSuites {
    @Suite("Live traffic in route choice")
    struct TrafficCustomiserTests {
        /// Casino to Fontvieille: long enough that Monaco offers several ways.
        static let from = GeoPoint(lat: 43.7396, lon: 7.4276)
        static let to = GeoPoint(lat: 43.7310, lon: 7.4170)

        @Test("A jammed street on the route: the next route goes round it, and comes back when the speeds expire")
        func jamChangesRoute() async throws {
            let monaco = await MonacoFixture.motorcycle
            // A map of its own: live speeds recorded here must not reach other tests' routes.
            let (before, jammed, after, method, checks) = try await OwnThread.run {
                let map = RoadMap(graph: monaco.graph, hierarchies: monaco.hierarchies, trafficExpiry: 600)
                let customiser = try #require(TrafficCustomiser(map: map))
                let planner = RoutePlanner(map: map)
                let now = Date()
                let before = try planner.route(RouteRequest(from: Self.from, to: Self.to), now: now)
                // Riders crawl at 1 m/s along the middle half of the route, in its direction.
                let points = try #require(Polyline.decode(before.geometry))
                let middle = points[(points.count / 4)..<(3 * points.count / 4)]
                for (a, b) in zip(middle, middle.dropFirst()) where a.distanceM(to: b) > 5 {
                    let halfway = GeoPoint(lat: (a.lat + b.lat) / 2, lon: (a.lon + b.lon) / 2)
                    map.traffic.record(
                        position: halfway, speedMps: 1, headingDeg: Bearing.degrees(from: a, to: b), recordedAt: now)
                }
                // Until a customisation, only the ETA knows.
                let unchosen = try planner.route(RouteRequest(from: Self.from, to: Self.to), now: now)
                let snapshot = try #require(customiser.customiseIfChanged(now: now))
                let jammed = try planner.route(RouteRequest(from: Self.from, to: Self.to), now: now)
                // Nothing new: no work.
                let idle = customiser.customiseIfChanged(now: now) == nil
                let later = now.addingTimeInterval(601)
                let expired = try #require(customiser.customiseIfChanged(now: later))
                let after = try planner.route(RouteRequest(from: Self.from, to: Self.to), now: later)
                return (
                    before, jammed, after, customiser.method,
                    (
                        unchosenSame: unchosen.geometry == before.geometry, liveArcs: snapshot.liveArcs, idle: idle,
                        expiredLive: expired.liveArcs
                    )
                )
            }
            #expect(method == .triangles)
            #expect(checks.unchosenSame)
            #expect(checks.liveArcs > 10)
            #expect(checks.idle)
            #expect(jammed.geometry != before.geometry)
            // The detour is longer but quicker than crawling through the jam.
            #expect(jammed.distanceM > before.distanceM)
            #expect(checks.expiredLive == 0)
            #expect(after.geometry == before.geometry)
            #expect(after.durationS == before.durationS)
        }

        @Test("Queries running during swaps each see one whole set of weights")
        func swapsUnderQueries() async throws {
            let monaco = await MonacoFixture.motorcycle
            let (checked, wrong) = try await OwnThread.run {
                let map = RoadMap(graph: monaco.graph, hierarchies: monaco.hierarchies)
                let customiser = try #require(TrafficCustomiser(map: map))
                let now = Date()
                let free = customiser.customise(now: now)
                var generator = SeededGenerator(state: 12)
                for arc in 0..<map.graph.arcCount where Double.random(in: 0...1, using: &generator) < 0.2 {
                    map.traffic.record(arc: arc, metresPerSecond: 1.5, observedAt: now)
                }
                let slow = customiser.customise(now: now)
                let nodes = map.graph.routableNodes
                let pairs = (0..<100).map { _ in
                    (nodes.randomElement(using: &generator)!, nodes.randomElement(using: &generator)!)
                }
                // The cost of every pair under each set of weights, by plain Dijkstra.
                var expected: [ObjectIdentifier: [UInt64?]] = [:]
                for snapshot in [free, slow] {
                    let dijkstra = DijkstraSearch(graph: map.graph, weights: snapshot.weights)
                    expected[ObjectIdentifier(snapshot)] = pairs.map {
                        dijkstra.shortestPath(
                            from: [SearchSeed(node: $0.0, cost: 0)], to: [SearchSeed(node: $0.1, cost: 0)])?.cost
                    }
                }
                let stop = Atomic<Bool>(false)
                let swapper = Thread {
                    var flip = false
                    while !stop.load(ordering: .relaxed) {
                        map.install(flip ? free : slow)
                        flip.toggle()
                    }
                }
                swapper.start()
                defer { stop.store(true, ordering: .relaxed) }
                var checked = 0
                var wrong: [String] = []
                for round in 0..<20 {
                    for (index, pair) in pairs.enumerated() {
                        let snapshot = map.snapshot(.time)!
                        let cost = HierarchyQuery(hierarchy: snapshot.hierarchy).shortestPath(
                            from: [SearchSeed(node: pair.0, cost: 0)], to: [SearchSeed(node: pair.1, cost: 0)])?.cost
                        if cost != expected[ObjectIdentifier(snapshot)]![index] {
                            wrong.append("round \(round) pair \(index)")
                        }
                        checked += 1
                    }
                }
                return (checked, wrong)
            }
            #expect(checked == 2_000)
            #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        }

        @Test(
            "Re-contraction in a kept order (its top share ordered again) matches Dijkstra on new weights",
            arguments: [0, 0.05, 0.3, 1])
        func recontraction(reorderedTop: Double) async {
            let (mismatches, brokenPaths) = await OwnThread.run {
                let graph = GridRoadNetwork.generate(side: 30, seed: 4)
                let prepared = ContractionHierarchy.build(graph: graph, metric: .time)
                var generator = SeededGenerator(state: 8)
                let weights = graph.weights(.time).map { $0 * UInt32.random(in: 1...6, using: &generator) }
                let again = ContractionHierarchy.build(
                    graph: graph, weights: weights, ranks: HierarchyOrder.ranks(of: prepared), metric: .time,
                    reorderedTop: reorderedTop)
                return HierarchyTests.compare(graph: graph, hierarchy: again, weights: weights, pairs: 300)
            }
            #expect(brokenPaths.isEmpty, "\(brokenPaths.prefix(5))")
            #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        }
    }
}
