import Foundation
import LogisticsCore

/// Turns the pieces of a found path into the route a rider follows: geometry, congestion, durations, steps with
/// maneuvers, text and voice instructions.
///
/// Each piece is timed for the moment the rider reaches it: by its live speed while that is still fresh then, else
/// by the speed learned for that quarter hour of the week, else by the profile.
struct RouteNarrator {
    let map: RoadMap
    let departure: Date

    /// One piece with everything the narration needs.
    struct Leg {
        var start: GeoPoint
        var end: GeoPoint
        var distanceM: Double
        var durationS: Double
        var congestion: LiveTraffic.Congestion
        var observedAt: Date?
        var name: String
        var isRoundabout: Bool
        var bearing: Double
        /// The original node at the piece's end, when the piece reaches it.
        var endNode: Int32?
        var startNode: Int32
    }

    /// `destination` is the door as asked for, beside the road's `end`: the arrival says on which side it is.
    func route(pieces: [RoutePiece], start: SegmentIndex.Snap, end: SegmentIndex.Snap, destination: GeoPoint? = nil)
        -> Route
    {
        let legs = describe(pieces)
        var points = [legs.first?.start ?? start.point]
        points.append(contentsOf: legs.map(\.end))
        if legs.isEmpty { points.append(end.point) }
        let steps = StepBuilder(map: map, legs: legs, destination: destination).steps(end: end.point)
        let distance = legs.reduce(0) { $0 + $1.distanceM }
        let duration = legs.reduce(0) { $0 + $1.durationS }.roundedTo(1)
        let newest = legs.compactMap(\.observedAt).max()
        let graph = map.graph
        return Route(
            distanceM: distance.roundedTo(1), durationS: duration.roundedTo(1),
            etaAt: RFC3339.string(from: departure.addingTimeInterval(duration)), geometry: Polyline.encode(points),
            legs: [RouteLeg(distanceM: distance.roundedTo(1), durationS: duration.roundedTo(1), steps: steps)],
            congestion: legs.map(\.congestion.rawValue), provider: "builtin",
            dataAgeS: newest.map { max(0, Int(departure.timeIntervalSince($0))) },
            waypoints: [
                Waypoint(
                    location: start.point.rounded(), name: graph.name(ofWay: start.way),
                    snapDistanceM: start.distanceM.roundedTo(1)),
                Waypoint(
                    location: end.point.rounded(), name: graph.name(ofWay: end.way),
                    snapDistanceM: end.distanceM.roundedTo(1)),
            ])
    }

    private func describe(_ pieces: [RoutePiece]) -> [Leg] {
        let graph = map.graph
        let sources = sourceNodes(pieces)
        let canonical = zip(pieces, sources).map { map.canonicalArc($0.arc, source: $1) }
        let observations = map.traffic.observations(arcs: canonical, now: departure)
        var reached = departure
        var legs: [Leg] = []
        legs.reserveCapacity(pieces.count)
        map.learned.withLookup { learnedSpeed in
            for (offset, piece) in pieces.enumerated() {
                let arc = piece.arc
                let source = sources[offset]
                let target = graph.arcTarget[arc]
                let a = graph.coordinate(source)
                let b = graph.coordinate(target)
                let share = piece.to - piece.from
                let distance = Double(graph.arcDistanceM[arc]) * share
                let freeFlowSpeed = Double(graph.arcDistanceM[arc]) / max(0.001, Double(graph.arcDurationS[arc]))
                let observation = observations[offset].flatMap {
                    reached.timeIntervalSince($0.observedAt) < map.traffic.expiry ? $0 : nil
                }
                let learned = observation == nil ? learnedSpeed(canonical[offset], reached) : nil
                let duration =
                    observation?.seconds(over: distance) ?? learned.map { distance / $0 }
                    ?? Double(graph.arcDurationS[arc]) * share
                reached.addTimeInterval(duration)
                let way = Int(graph.arcWay[arc])
                legs.append(
                    Leg(
                        start: a.interpolated(to: b, piece.from), end: a.interpolated(to: b, piece.to),
                        distanceM: distance, durationS: duration,
                        congestion: LiveTraffic.congestion(
                            liveMetresPerSecond: observation?.metresPerSecond ?? learned,
                            freeFlowMetresPerSecond: freeFlowSpeed),
                        observedAt: observation?.observedAt, name: graph.name(ofWay: Int32(way)),
                        isRoundabout: graph.wayIsRoundabout[way], bearing: Bearing.degrees(from: a, to: b),
                        endNode: piece.to >= 1 ? graph.originalNode[Int(target)] : nil,
                        startNode: graph.originalNode[Int(source)]))
            }
        }
        return legs
    }

    /// Each piece's tail node. A path's pieces join end to start, so the previous piece's head is checked first and
    /// the binary search over all nodes is left for the first piece.
    private func sourceNodes(_ pieces: [RoutePiece]) -> [Int32] {
        let graph = map.graph
        var sources: [Int32] = []
        sources.reserveCapacity(pieces.count)
        for (offset, piece) in pieces.enumerated() {
            if offset > 0 {
                let joined = graph.arcTarget[pieces[offset - 1].arc]
                if graph.arcs(from: joined).contains(piece.arc) {
                    sources.append(joined)
                    continue
                }
            }
            sources.append(graph.sourceNode(ofArc: piece.arc))
        }
        return sources
    }
}

extension GeoPoint {
    func interpolated(to other: GeoPoint, _ fraction: Double) -> GeoPoint {
        GeoPoint(lat: lat + (other.lat - lat) * fraction, lon: lon + (other.lon - lon) * fraction)
    }

    /// Seven decimals: about a centimetre, and what OSM stores.
    func rounded() -> GeoPoint {
        GeoPoint(lat: (lat * 1e7).rounded() / 1e7, lon: (lon * 1e7).rounded() / 1e7)
    }
}

extension Double {
    func roundedTo(_ digits: Int) -> Double {
        let factor = pow(10, Double(digits))
        return (self * factor).rounded() / factor
    }
}
