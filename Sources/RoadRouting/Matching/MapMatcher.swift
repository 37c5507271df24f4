import Foundation
import LogisticsCore

/// Matches a GPS trace to the roads driven, as a hidden Markov model (Newson & Krumm, 2009): each fix has candidate
/// positions on the segments within reach of its accuracy, likelier the closer they are; moving from one fix's
/// candidate to the next is likelier the closer the road distance between them is to the straight-line distance
/// between the fixes. Viterbi picks the likeliest sequence, so a fix nearer a parallel street or the wrong arm of a
/// junction still lands on the road the rider was on.
///
/// A fix with no road in reach is left unmatched and the chain goes on past it; when no candidate of a fix can be
/// reached from the previous one (a jump, a tunnel), the chain breaks and a new stretch starts.
public struct MapMatcher: Sendable {
    public struct Fix: Sendable, Equatable {
        public var point: GeoPoint
        public var recordedAt: Date

        public init(point: GeoPoint, recordedAt: Date) {
            self.point = point
            self.recordedAt = recordedAt
        }
    }

    /// Where a fix landed: a position on one arc, in its driving direction.
    public struct MatchedPoint: Sendable, Equatable {
        public var arc: Int
        /// Position along the arc from its source (0) to its target (1).
        public var fraction: Double
        public var point: GeoPoint
        public var distanceM: Double
    }

    /// A run of fixes matched into one connected path.
    public struct Stretch: Sendable, Equatable {
        /// Indices into the trace as given, in time order.
        public var fixes: [Int]
        /// The arcs driven, in order (the first and last partly).
        public var arcs: [Int]
        /// The path as drawn: the first matched point, the road's nodes between, the last matched point.
        public var coordinates: [GeoPoint]
    }

    public struct Match: Sendable, Equatable {
        /// One entry per fix of the trace as given: where it landed, or nil.
        public var points: [MatchedPoint?]
        public var stretches: [Stretch]
        /// Runs of fixes in time order that landed nowhere, as indices into the trace as given.
        public var unmatched: [[Int]]
    }

    /// GPS error when a fix does not say (Newson & Krumm measured 4.07 m; phones in cities do worse).
    public var defaultAccuracyM = 10.0
    /// How far from a fix candidates are looked for, in multiples of its accuracy (bounded below and above).
    public var reachInAccuracies = 4.0
    public var minimumReachM = 30.0
    public var maximumReachM = 150.0
    public var candidatesPerFix = 8
    /// Newson & Krumm's β: how much road and straight-line distance may differ between fixes before a transition
    /// turns unlikely, in metres.
    public var beta = 5.0
    /// How far the road search between two fixes looks: as far as this speed covers in the time between them (and
    /// never past twice the straight line, plus 300 m).
    public var maximumSpeedMps = 50.0

    private let graph: RoadGraph
    private let index: SegmentIndex
    private let distanceWeights: [UInt32]
    /// Restriction copies of a node: a road leaving a junction with a turn restriction leaves from the copy the
    /// rider arrived at, and a candidate only on the original's arc could not be reached from the road before.
    private let copies: [Int32: [Int32]]

    /// A matcher on a prepared map, with the weights, snapping index and restriction copies it already holds.
    public init(map: RoadMap) {
        graph = map.graph
        index = map.index
        distanceWeights = map.weights[.distance] ?? map.graph.weights(.distance)
        copies = map.copies
    }

    /// The arcs along `way` from `source` (or any of its copies) to `target` (or any of its copies).
    private func arcs(from source: Int32, toward target: Int32, along way: Int32) -> [Int] {
        ([source] + (copies[source] ?? [])).flatMap { graph.arcs(from: $0, toward: target, along: way) }
    }

    private struct Candidate {
        var matched: MatchedPoint
        var emission: Double
    }

    private struct Layer {
        var fix: Int
        var candidates: [Candidate]
        var score: [Double]
        var back: [Int]
        var setAside: [(fix: Int, candidates: [Candidate])] = []

        /// The first layer of a chain: nothing before it, each candidate as likely as its fix says.
        static func start(_ fix: Int, _ candidates: [Candidate]) -> Layer {
            Layer(fix: fix, candidates: candidates, score: candidates.map(\.emission), back: candidates.map { _ in -1 })
        }
    }

    public func match(_ trace: [Fix]) -> Match {
        // Time order; a stable sort keeps repeated timestamps in the order given.
        let order = trace.indices.sorted { (trace[$0].recordedAt, $0) < (trace[$1].recordedAt, $1) }
        var search = NearbyDistances(graph: graph, weights: distanceWeights)
        var points = [MatchedPoint?](repeating: nil, count: trace.count)
        var stretches: [Stretch] = []
        // The current chain: per matched fix, its candidates, best log-likelihoods and back pointers, and the fixes
        // that came within 2σ of it and were set aside (Newson & Krumm): GPS jitter of a rider standing or crawling
        // makes such fixes seem to go backwards, which the roads can only explain by a loop around the block.
        var layers: [Layer] = []

        func closeChain() {
            guard let last = layers.last, let best = last.score.indices.max(by: { last.score[$0] < last.score[$1] })
            else { return }
            var chosen = [Int](repeating: 0, count: layers.count)
            chosen[layers.count - 1] = best
            for layer in stride(from: layers.count - 1, to: 0, by: -1) {
                chosen[layer - 1] = layers[layer].back[chosen[layer]]
            }
            var stretch = Stretch(fixes: [], arcs: [], coordinates: [])
            for (layer, pick) in chosen.enumerated() {
                let matched = layers[layer].candidates[pick].matched
                points[layers[layer].fix] = matched
                stretch.fixes.append(layers[layer].fix)
                stretch.fixes += layers[layer].setAside.map(\.fix)
                if layer == 0 {
                    stretch.arcs = [matched.arc]
                    stretch.coordinates = [matched.point]
                } else {
                    let previous = layers[layer - 1].candidates[chosen[layer - 1]].matched
                    append(from: previous, to: matched, into: &stretch, search: &search)
                }
            }
            // A fix set aside lands where the path passes nearest to it, else where its layer's fix did.
            let onPath = Set(stretch.arcs)
            for (layer, pick) in chosen.enumerated() {
                for aside in layers[layer].setAside {
                    points[aside.fix] =
                        aside.candidates.filter { onPath.contains($0.matched.arc) }
                        .max { $0.emission < $1.emission }?.matched ?? layers[layer].candidates[pick].matched
                }
            }
            stretches.append(stretch)
            layers.removeAll()
        }

        for fix in order {
            let candidates = self.candidates(for: trace[fix])
            guard !candidates.isEmpty else { continue }
            guard let previous = layers.last else {
                layers.append(.start(fix, candidates))
                continue
            }
            let from = trace[previous.fix]
            let straight = from.point.distanceM(to: trace[fix].point)
            if straight < 2 * sigma(of: trace[fix]) {
                layers[layers.count - 1].setAside.append((fix, candidates))
                continue
            }
            let seconds = trace[fix].recordedAt.timeIntervalSince(from.recordedAt)
            let limitM = min(straight * 2 + 300, max(straight, maximumSpeedMps * max(seconds, 1)) + 300)
            var score = [Double](repeating: -.infinity, count: candidates.count)
            var back = [Int](repeating: -1, count: candidates.count)
            let wanted = Set(candidates.map { graph.sourceNode(ofArc: $0.matched.arc) })
            for (p, before) in previous.candidates.enumerated() where previous.score[p] > -.infinity {
                let start = before.matched
                search.search(
                    from: graph.arcTarget[start.arc], limitCm: UInt64(limitM * 100), wanted: wanted)
                for (c, candidate) in candidates.enumerated() {
                    guard let road = roadDistanceM(from: start, to: candidate.matched, search: search),
                        road <= limitM
                    else { continue }
                    let total = previous.score[p] - abs(road - straight) / beta + candidate.emission
                    if total > score[c] {
                        score[c] = total
                        back[c] = p
                    }
                }
            }
            if score.allSatisfy({ $0 == -.infinity }) {
                // Nothing connects: what came before is a stretch of its own.
                closeChain()
                layers.append(.start(fix, candidates))
            } else {
                layers.append(Layer(fix: fix, candidates: candidates, score: score, back: back))
            }
        }
        closeChain()
        var unmatched: [[Int]] = []
        var run: [Int] = []
        for fix in order {
            if points[fix] == nil {
                run.append(fix)
            } else if !run.isEmpty {
                unmatched.append(run)
                run = []
            }
        }
        if !run.isEmpty { unmatched.append(run) }
        return Match(points: points, stretches: stretches, unmatched: unmatched)
    }

    /// The positions a fix may stand for, one per direction of each segment in reach, with the log-likelihood of
    /// the fix given that position (a Gaussian of the distance).
    private func candidates(for fix: Fix) -> [Candidate] {
        guard fix.point.lat.isFinite, fix.point.lon.isFinite else { return [] }
        let sigma = sigma(of: fix)
        let reach = min(maximumReachM, max(minimumReachM, sigma * reachInAccuracies))
        var found: [Candidate] = []
        for snap in nearestPerRoad(fix.point, reach: reach) {
            let emission = -0.5 * (snap.distanceM / sigma) * (snap.distanceM / sigma)
            for arc in arcs(from: snap.nodeA, toward: snap.nodeB, along: snap.way) {
                found.append(
                    Candidate(
                        matched: MatchedPoint(
                            arc: arc, fraction: snap.fraction, point: snap.point, distanceM: snap.distanceM),
                        emission: emission))
            }
            for arc in arcs(from: snap.nodeB, toward: snap.nodeA, along: snap.way) {
                found.append(
                    Candidate(
                        matched: MatchedPoint(
                            arc: arc, fraction: 1 - snap.fraction, point: snap.point, distanceM: snap.distanceM),
                        emission: emission))
            }
        }
        return found
    }

    /// The GPS error to expect of a fix: what it says, within reason.
    private func sigma(of fix: Fix) -> Double { max(3, fix.point.accuracyM ?? defaultAccuracyM) }

    /// The nearest segments within reach, one per run of a road: a road's segments between OSM nodes are often a few
    /// metres long, and the nearest eight would otherwise be three pieces of each of two roads, crowding out the
    /// road the rider was on when the fix fell nearer the other. A road passing twice (a hairpin) keeps both passes.
    private func nearestPerRoad(_ point: GeoPoint, reach: Double) -> [SegmentIndex.Snap] {
        var chosen: [SegmentIndex.Snap] = []
        var covered: [Int32: Set<Int32>] = [:]
        for snap in index.candidates(near: point, maxDistanceM: reach, limit: candidatesPerFix * 6) {
            let seen = covered[snap.way, default: []]
            covered[snap.way, default: []].formUnion([snap.nodeA, snap.nodeB])
            guard !seen.contains(snap.nodeA), !seen.contains(snap.nodeB) else { continue }
            chosen.append(snap)
            if chosen.count == candidatesPerFix { break }
        }
        return chosen
    }

    /// Metres driven from one matched position to the next: along the same arc, or to its end, over the roads, and
    /// into the next arc. A small step back on the same arc is GPS jitter of a rider standing still, not a loop.
    private func roadDistanceM(from start: MatchedPoint, to end: MatchedPoint, search: NearbyDistances) -> Double? {
        let startLength = Double(graph.arcDistanceM[start.arc])
        if start.arc == end.arc {
            let along = (end.fraction - start.fraction) * startLength
            if along >= 0 { return along }
            if -along <= 15 { return 0 }
        }
        guard let between = search.centimetres(to: graph.sourceNode(ofArc: end.arc)) else { return nil }
        return (1 - start.fraction) * startLength + Double(between) / 100
            + end.fraction * Double(graph.arcDistanceM[end.arc])
    }

    /// Extends a stretch by the road from one matched point to the next.
    private func append(
        from start: MatchedPoint, to end: MatchedPoint, into stretch: inout Stretch, search: inout NearbyDistances
    ) {
        if start.arc == end.arc, end.fraction >= start.fraction - 15 / max(1, Double(graph.arcDistanceM[start.arc])) {
            stretch.coordinates.append(end.point)
            return
        }
        let target = graph.arcTarget[start.arc]
        let entry = graph.sourceNode(ofArc: end.arc)
        search.search(from: target, limitCm: .max, wanted: [entry])
        stretch.coordinates.append(graph.coordinate(target))
        for arc in search.arcs(to: entry) {
            stretch.arcs.append(arc)
            stretch.coordinates.append(graph.coordinate(graph.arcTarget[arc]))
        }
        stretch.arcs.append(end.arc)
        stretch.coordinates.append(end.point)
    }
}
