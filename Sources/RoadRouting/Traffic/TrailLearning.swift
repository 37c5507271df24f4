import Foundation
import LogisticsCore

/// One of a rider's fixes as traffic evidence: where and when, and the speed the GPS measured.
public struct TrafficFix: Sendable, Equatable {
    public var point: GeoPoint
    public var speedMps: Double?
    public var recordedAt: Date

    public init(point: GeoPoint, speedMps: Double?, recordedAt: Date) {
        self.point = point
        self.speedMps = speedMps
        self.recordedAt = recordedAt
    }
}

extension RoadMap {
    /// Fixes farther than this from where they were matched are not traffic evidence (a rider in a building).
    static let trafficMatchDistanceM = 25.0

    /// Learns from a rider's recent trail matched to the roads with the HMM matcher: each new fix's speed lands on
    /// the arc the matched path drives there, so a speed measured at a junction or beside a parallel street goes
    /// to the road actually driven, not to the nearest one. Only the fixes in `learning` teach; the others steer
    /// the match: those before were learned from already, and those after let the matcher look ahead, which a
    /// trail's last fixes otherwise lack. Returns, for each fix in `learning`, the arc that learned its speed, or
    /// nil.
    @discardableResult
    public func observe(trail: [TrafficFix], learning: Range<Int>) -> [Int?] {
        let learning = learning.clamped(to: 0..<trail.count)
        guard !learning.isEmpty else { return [] }
        let match = MapMatcher(map: self).match(
            trail.map { MapMatcher.Fix(point: $0.point, recordedAt: $0.recordedAt) })
        var arcs = [Int?](repeating: nil, count: learning.count)
        // A stretch's first fix has nothing before it to tell the direction driven.
        let starts = Set(match.stretches.compactMap(\.fixes.first))
        for index in learning where !starts.contains(index) {
            let fix = trail[index]
            // Below walking pace a rider is parked at a pickup or a door, not in traffic.
            guard let speed = fix.speedMps, speed.isFinite, speed >= 1, (fix.point.accuracyM ?? 0) <= 50,
                let matched = match.points[index], matched.distanceM <= Self.trafficMatchDistanceM
            else { continue }
            let arc = canonicalArc(matched.arc)
            traffic.record(arc: arc, metresPerSecond: speed, observedAt: fix.recordedAt)
            learned.record(arc: arc, metresPerSecond: speed, at: fix.recordedAt)
            arcs[index - learning.lowerBound] = arc
        }
        return arcs
    }
}
