import Foundation
import LogisticsCore

/// A route request in the terms of the built-in router.
public struct RouteRequest: Sendable, Equatable {
    public var from: GeoPoint
    public var to: GeoPoint
    /// The rider's current heading; the route then starts in that direction when the road allows it.
    public var headingDeg: Double?
    public var metric: RouteMetric
    /// A later departure: the route is timed (and, where the map allows, chosen) on the speeds learned for then.
    public var departAt: Date?

    public init(
        from: GeoPoint, to: GeoPoint, headingDeg: Double? = nil, metric: RouteMetric = .time, departAt: Date? = nil
    ) {
        self.from = from
        self.to = to
        self.headingDeg = headingDeg
        self.metric = metric
        self.departAt = departAt
    }
}

/// A part of one arc that a route drives: fractions measured from the arc's source node.
struct RoutePiece: Equatable {
    var arc: Int
    var from: Double
    var to: Double

    /// Its share of the arc's search weight, rounded as the searches count it.
    func cost(_ weights: [UInt32]) -> UInt64 {
        UInt64((Double(weights[arc]) * (to - from)).rounded())
    }
}

/// Answers route requests on a `RoadMap`: snaps both ends, searches the contraction hierarchy from the snapped
/// positions (partial segments included), and narrates the path.
public struct RoutePlanner: Sendable {
    public let map: RoadMap
    public let maxSnapDistanceM: Double

    public init(map: RoadMap, maxSnapDistanceM: Double = 300) {
        self.map = map
        self.maxSnapDistanceM = maxSnapDistanceM
    }

    /// `snapshot` replaces the map's current search data, as for a later departure (same metric as the request).
    public func route(_ request: RouteRequest, now: Date, snapshot chosen: RoutingSnapshot? = nil) throws(RoutingError)
        -> Route
    {
        let graph = map.graph
        guard let start = map.index.nearest(to: request.from, maxDistanceM: maxSnapDistanceM) else {
            throw .notNearRoad(field: "from", point: request.from, limitM: maxSnapDistanceM)
        }
        guard let end = map.index.nearest(to: request.to, maxDistanceM: maxSnapDistanceM) else {
            throw .notNearRoad(field: "to", point: request.to, limitM: maxSnapDistanceM)
        }
        guard let snapshot = chosen ?? map.snapshot(request.metric) else { throw .profileNotLoaded(graph.profile) }
        let weights = snapshot.weights
        let sources = sourcePieces(start, heading: request.headingDeg)
        let targets = targetPieces(end)
        func cost(_ piece: RoutePiece) -> UInt64 { piece.cost(weights) }

        var best: (cost: UInt64, pieces: [RoutePiece])?
        // Both ends on the same segment, in a drivable direction: no search needed for the direct path.
        for source in sources {
            for target in targets where target.arc == source.arc && target.to >= source.from {
                let direct = RoutePiece(arc: source.arc, from: source.from, to: target.to)
                if cost(direct) < best?.cost ?? .max { best = (cost(direct), [direct]) }
            }
        }
        let sourceSeeds = sources.map { SearchSeed(node: graph.arcTarget[$0.arc], cost: cost($0)) }
        let targetSeeds = targets.map { SearchSeed(node: graph.sourceNode(ofArc: $0.arc), cost: cost($0)) }
        if let path = HierarchyQuery(hierarchy: snapshot.hierarchy).shortestPath(from: sourceSeeds, to: targetSeeds),
            path.cost < best?.cost ?? .max
        {
            let first = sources.filter { graph.arcTarget[$0.arc] == path.sourceNode }.min { cost($0) < cost($1) }!
            let last = targets.filter { graph.sourceNode(ofArc: $0.arc) == path.targetNode }.min {
                cost($0) < cost($1)
            }!
            let middle = path.arcs.map { RoutePiece(arc: $0, from: 0, to: 1) }
            best = (path.cost, ([first] + middle + [last]).filter { $0.to > $0.from })
        }
        guard let best else { throw .noRoute }
        return RouteNarrator(map: map, departure: request.departAt ?? now).route(
            pieces: best.pieces, start: start, end: end, destination: request.to)
    }

    /// The ways to leave the start: along its segment towards either end, if the direction is legal.
    func sourcePieces(_ snap: SegmentIndex.Snap, heading: Double?) -> [RoutePiece] {
        var pieces: [RoutePiece] = []
        for arc in arcs(from: [snap.nodeA], to: snap.nodeB, way: snap.way) {
            pieces.append(RoutePiece(arc: arc, from: snap.fraction, to: 1))
        }
        for arc in arcs(from: [snap.nodeB], to: snap.nodeA, way: snap.way) {
            pieces.append(RoutePiece(arc: arc, from: 1 - snap.fraction, to: 1))
        }
        guard let heading, heading.isFinite else { return pieces }
        let ahead = pieces.filter { piece in
            let graph = map.graph
            let bearing = Bearing.degrees(
                from: graph.coordinate(graph.sourceNode(ofArc: piece.arc)),
                to: graph.coordinate(graph.arcTarget[piece.arc]))
            return Bearing.difference(bearing, heading) <= 90
        }
        return ahead.isEmpty ? pieces : ahead
    }

    /// The ways to reach the destination: arriving along its segment from either end, from any copy of that end.
    func targetPieces(_ snap: SegmentIndex.Snap) -> [RoutePiece] {
        let fromA = [snap.nodeA] + (map.copies[snap.nodeA] ?? [])
        let fromB = [snap.nodeB] + (map.copies[snap.nodeB] ?? [])
        return arcs(from: fromA, to: snap.nodeB, way: snap.way).map { RoutePiece(arc: $0, from: 0, to: snap.fraction) }
            + arcs(from: fromB, to: snap.nodeA, way: snap.way).map {
                RoutePiece(arc: $0, from: 0, to: 1 - snap.fraction)
            }
    }

    private func arcs(from sources: [Int32], to target: Int32, way: Int32) -> [Int] {
        sources.flatMap { map.graph.arcs(from: $0, toward: target, along: way) }
    }
}
