import Foundation
import LogisticsCore
import RoadRouting

/// How well the map matcher does on traces whose truth is known: routes driven on a map, fixes sampled along them
/// with Gaussian GPS noise, and the share of fixes matched to the segment they were really on. Shared by the
/// matcher's tests and `logistics-bench matching`.
public enum MatchingCheck {
    /// A trace sampled every `intervalS` along a route at `speedMps`, each fix moved by Gaussian noise of
    /// `noiseM`, with the arc each fix was really on.
    public struct DrivenTrace: Sendable {
        public var fixes: [MapMatcher.Fix] = []
        public var trueArcs: [Int] = []
        public var truePoints: [GeoPoint] = []
    }

    public static func drive(
        _ arcs: [Int], on graph: RoadGraph, noiseM: Double, generator: inout SeededGenerator,
        speedMps: Double = 8, intervalS: Double = 3
    ) -> DrivenTrace {
        var trace = DrivenTrace()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var travelled = 0.0
        var next = 0.0
        for arc in arcs {
            let length = Double(graph.arcDistanceM[arc])
            let from = graph.coordinate(graph.sourceNode(ofArc: arc))
            let to = graph.coordinate(graph.arcTarget[arc])
            while next <= travelled + length {
                let fraction = length == 0 ? 0 : (next - travelled) / length
                let truth = GeoPoint(
                    lat: from.lat + (to.lat - from.lat) * fraction, lon: from.lon + (to.lon - from.lon) * fraction)
                // Box–Muller: two uniform draws, one Gaussian offset in each direction.
                let u = max(Double.leastNonzeroMagnitude, Double.random(in: 0..<1, using: &generator))
                let angle = Double.random(in: 0..<(2 * .pi), using: &generator)
                let radius = noiseM * (-2 * log(u)).squareRoot()
                let north = radius * sin(angle)
                let east = radius * cos(angle)
                let noisy = GeoPoint(
                    lat: truth.lat + north / 111_195,
                    lon: truth.lon + east / (111_195 * cos(truth.lat * .pi / 180)), accuracyM: noiseM)
                trace.fixes.append(.init(point: noisy, recordedAt: start.addingTimeInterval(next / speedMps)))
                trace.trueArcs.append(arc)
                trace.truePoints.append(truth)
                next += speedMps * intervalS
            }
            travelled += length
        }
        return trace
    }

    /// Random routes of at least 800 m on Monaco's main component, as the fastest path goes.
    public static func routes(_ map: RoadMap, count: Int, seed: UInt64) -> [[Int]] {
        let graph = map.graph
        let dijkstra = DijkstraSearch(graph: graph, metric: .time)
        let nodes = graph.routableNodes
        var generator = SeededGenerator(state: seed)
        var routes: [[Int]] = []
        while routes.count < count {
            let a = nodes.randomElement(using: &generator)!
            let b = nodes.randomElement(using: &generator)!
            guard
                let path = dijkstra.shortestPath(
                    from: [SearchSeed(node: a, cost: 0)], to: [SearchSeed(node: b, cost: 0)]),
                path.arcs.reduce(0, { $0 + Double(graph.arcDistanceM[$1]) }) >= 800
            else { continue }
            routes.append(path.arcs)
        }
        return routes
    }

    /// The road segment an arc lies on, whichever way it is driven.
    public static func segment(_ arc: Int, _ graph: RoadGraph) -> Set<Int32> {
        [graph.originalNode[Int(graph.sourceNode(ofArc: arc))], graph.originalNode[Int(graph.arcTarget[arc])]]
    }

    /// Whether a fix placed at `point` on `way` is on the road (OSM way) it was driven on, or within 3 m of where it
    /// really was (at a junction a fix may land on the crossing road).
    static func isOnRoad(way: Int32, at point: GeoPoint, fix index: Int, of trace: DrivenTrace, _ graph: RoadGraph)
        -> Bool
    {
        graph.wayOSMId[Int(way)] == graph.wayOSMId[Int(graph.arcWay[trace.trueArcs[index]])]
            || point.distanceM(to: trace.truePoints[index]) < 3
    }

    /// How a matcher did on a set of traces.
    public struct Score: Sendable {
        /// Of the road driven between the first and the last fix, the share (by length) of its segments the matched
        /// path also drove: the "correct segments" share.
        public var segmentShare: Double
        /// Newson & Krumm's route mismatch fraction: length driven but not matched plus matched but not driven, over
        /// the length driven.
        public var mismatchFraction: Double
        /// The share of fixes placed on the road (OSM way) they were on, or within 3 m of where they really were (at
        /// a junction a fix may land on the crossing road); along-track GPS noise alone moves a fix between the
        /// short segments of one road, so per-fix segment identity would measure the noise, not the matcher.
        public var fixOnRoadShare: Double
        public var fixes: Int
        public var matchingSeconds: Double
    }

    public static func accuracy(noiseM: Double, map: RoadMap, routes: [[Int]], seed: UInt64) -> Score {
        let graph = map.graph
        let matcher = MapMatcher(map: map)
        var generator = SeededGenerator(state: seed)
        var score = Score(segmentShare: 0, mismatchFraction: 0, fixOnRoadShare: 0, fixes: 0, matchingSeconds: 0)
        var drivenM = 0.0
        var sharedM = 0.0
        var extraM = 0.0
        var onRoad = 0
        for route in routes {
            let trace = drive(route, on: graph, noiseM: noiseM, generator: &generator)
            let started = ContinuousClock.now
            let match = matcher.match(trace.fixes)
            let (seconds, attoseconds) = (ContinuousClock.now - started).components
            score.matchingSeconds += Double(seconds) + Double(attoseconds) / 1e18
            score.fixes += trace.fixes.count
            for (index, matched) in match.points.enumerated() {
                guard let matched else { continue }
                if isOnRoad(way: graph.arcWay[matched.arc], at: matched.point, fix: index, of: trace, graph) {
                    onRoad += 1
                }
            }
            // The route between the first and the last fix, and the matched path, as sets of segments.
            guard let first = route.firstIndex(of: trace.trueArcs.first ?? -1),
                let last = route.lastIndex(of: trace.trueArcs.last ?? -1), first <= last
            else { continue }
            var driven: [Set<Int32>: Double] = [:]
            for arc in route[first...last] { driven[segment(arc, graph)] = Double(graph.arcDistanceM[arc]) }
            var matched: [Set<Int32>: Double] = [:]
            for arc in match.stretches.flatMap(\.arcs) {
                matched[segment(arc, graph)] = Double(graph.arcDistanceM[arc])
            }
            drivenM += driven.values.reduce(0, +)
            sharedM += driven.filter { matched[$0.key] != nil }.values.reduce(0, +)
            extraM += matched.filter { driven[$0.key] == nil }.values.reduce(0, +)
        }
        score.segmentShare = sharedM / max(1, drivenM)
        score.mismatchFraction = (drivenM - sharedM + extraM) / max(1, drivenM)
        score.fixOnRoadShare = Double(onRoad) / Double(max(1, score.fixes))
        return score
    }

    /// The per-fix score of the baseline: each fix snapped alone to its nearest segment.
    public static func nearestSegmentOnRoadShare(noiseM: Double, map: RoadMap, routes: [[Int]], seed: UInt64) -> Double
    {
        let graph = map.graph
        var generator = SeededGenerator(state: seed)
        var onRoad = 0
        var total = 0
        for route in routes {
            let trace = drive(route, on: graph, noiseM: noiseM, generator: &generator)
            for (index, fix) in trace.fixes.enumerated() {
                total += 1
                guard let snap = map.index.nearest(to: fix.point, maxDistanceM: 150) else { continue }
                if isOnRoad(way: snap.way, at: snap.point, fix: index, of: trace, graph) { onRoad += 1 }
            }
        }
        return Double(onRoad) / Double(max(1, total))
    }
}
