import Foundation
import LogisticsCore
import Synchronization

/// Segment speeds learned from the fleet's own location fixes. Each fix is matched to the nearest road segment in
/// its direction of travel; its GPS speed updates an exponentially smoothed speed for that arc. Speeds older than
/// `expiry` fall back to the profile's free-flow speed.
///
/// External feeds plug in through `record(arc:metresPerSecond:observedAt:)`, the same path as the fleet's own
/// observations (`OSMSegments` finds the arc a feed names by its OSM nodes).
public final class LiveTraffic: Sendable {
    public struct Observation: Sendable, Equatable {
        public var metresPerSecond: Double
        public var observedAt: Date
        public var samples: Int

        /// Time to drive `metres` at this speed; a crawl counts as 1 m/s, so a parked rider never makes a road
        /// endless. The ETA and the customised route weights both use it, so the route chosen and its ETA agree.
        public func seconds(over metres: Double) -> Double { metres / max(1, metresPerSecond) }
    }

    /// How congested a segment is: the live speed as a share of its free-flow speed.
    public enum Congestion: String, Sendable, Codable {
        case low = "LOW"
        case moderate = "MODERATE"
        case heavy = "HEAVY"
        case severe = "SEVERE"
        case unknown = "UNKNOWN"
    }

    public let expiry: TimeInterval
    /// Weight of a new observation in the smoothed speed.
    private let smoothing = 0.3
    /// Fixes farther than this from any road are not traffic evidence (a rider in a building, a bad fix).
    private let matchDistanceM = 25.0
    /// Below walking pace a rider is parked at a pickup or a door, not in traffic.
    private let minimumMovingSpeed = 1.0
    private let graph: RoadGraph
    private let index: SegmentIndex
    private let speeds = Mutex<(byArc: [Int32: Observation], revision: Int)>(([:], 0))

    public init(graph: RoadGraph, index: SegmentIndex, expiry: TimeInterval = 600) {
        self.graph = graph
        self.index = index
        self.expiry = expiry
    }

    /// Learns from one fix; returns the arc it was matched to, or nil when the fix says nothing about traffic.
    @discardableResult
    public func record(
        position: GeoPoint, speedMps: Double?, headingDeg: Double?, recordedAt: Date
    ) -> Int? {
        guard let speedMps, speedMps.isFinite, speedMps >= minimumMovingSpeed, let headingDeg, headingDeg.isFinite,
            (position.accuracyM ?? 0) <= 50,
            let snap = index.nearest(to: position, maxDistanceM: matchDistanceM)
        else { return nil }
        // Of the segment's directions, the one within 45° of the rider's heading.
        let candidates =
            graph.arcs(from: snap.nodeA, toward: snap.nodeB, along: snap.way)
            + graph.arcs(from: snap.nodeB, toward: snap.nodeA, along: snap.way)
        guard
            let arc = candidates.first(where: {
                let from = graph.coordinate(graph.sourceNode(ofArc: $0))
                let to = graph.coordinate(graph.originalNode[Int(graph.arcTarget[$0])])
                return Bearing.difference(Bearing.degrees(from: from, to: to), headingDeg) <= 45
            })
        else { return nil }
        record(arc: arc, metresPerSecond: speedMps, observedAt: recordedAt)
        return arc
    }

    /// The hook for any speed source: one observed speed on one arc.
    public func record(arc: Int, metresPerSecond: Double, observedAt: Date) {
        guard arc >= 0, arc < graph.arcCount, metresPerSecond.isFinite, metresPerSecond >= 0 else { return }
        speeds.withLock { state in
            let key = Int32(arc)
            if var known = state.byArc[key], observedAt.timeIntervalSince(known.observedAt) < expiry {
                guard observedAt >= known.observedAt else { return }
                known.metresPerSecond = known.metresPerSecond * (1 - smoothing) + metresPerSecond * smoothing
                known.observedAt = observedAt
                known.samples += 1
                state.byArc[key] = known
            } else {
                state.byArc[key] = Observation(metresPerSecond: metresPerSecond, observedAt: observedAt, samples: 1)
            }
            state.revision += 1
        }
    }

    /// Fresh observations for many arcs at once, under one lock.
    public func observations(arcs: [Int], now: Date) -> [Observation?] {
        speeds.withLock { state in
            arcs.map { arc in
                guard let known = state.byArc[Int32(arc)], now.timeIntervalSince(known.observedAt) < expiry else {
                    return nil
                }
                return known
            }
        }
    }

    /// Every fresh speed, by arc, under one lock: what a customisation folds into route choice. Expired ones are
    /// forgotten here, so the table holds the arcs driven within `expiry`, not every arc ever driven.
    public func freshSpeeds(now: Date) -> [Int32: Observation] {
        speeds.withLock { state in
            let fresh = state.byArc.filter { now.timeIntervalSince($0.value.observedAt) < expiry }
            if fresh.count < state.byArc.count { state.byArc = fresh }
            return fresh
        }
    }

    /// How many arcs have a speed, fresh or not yet forgotten.
    public var trackedArcs: Int { speeds.withLock { $0.byArc.count } }

    /// Grows with every recorded observation: unchanged means no customisation is needed for new data.
    public var revision: Int { speeds.withLock { $0.revision } }

    public static func congestion(liveMetresPerSecond: Double?, freeFlowMetresPerSecond: Double) -> Congestion {
        guard let live = liveMetresPerSecond, freeFlowMetresPerSecond > 0 else { return .unknown }
        let ratio = live / freeFlowMetresPerSecond
        if ratio >= 0.75 { return .low }
        if ratio >= 0.5 { return .moderate }
        if ratio >= 0.25 { return .heavy }
        return .severe
    }
}
