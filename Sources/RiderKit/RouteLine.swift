import Foundation
import LogisticsCore

/// A route's geometry with cumulative distances, for matching positions onto it.
struct RouteLine: Sendable {
    let points: [GeoPoint]
    /// `along[i]`: metres from the start to `points[i]`.
    let along: [Double]

    init(_ points: [GeoPoint]) {
        self.points = points
        var along = [0.0]
        for (from, to) in zip(points, points.dropFirst()) { along.append(along.last! + from.distanceM(to: to)) }
        self.along = along
    }

    var length: Double { along.last ?? 0 }

    struct Match: Sendable, Equatable {
        var segment: Int
        var point: GeoPoint
        var alongM: Double
        /// How far the position is from the route.
        var offsetM: Double
    }

    /// The nearest point of the route between `fromAlongM` and `toAlongM` metres from its start: where the rider
    /// can have got to since the last fix, so a route that passes near itself (a loop, a hairpin) does not
    /// make the match jump ahead.
    func match(_ position: GeoPoint, fromAlongM: Double = 0, toAlongM: Double = .infinity) -> Match? {
        guard points.count >= 2 else { return nil }
        var first = 0
        while first < points.count - 2 && along[first + 1] < fromAlongM { first += 1 }
        var last = first
        while last < points.count - 2 && along[last + 1] <= toAlongM { last += 1 }
        return nearest(position, in: first...last)
    }

    private func nearest(_ position: GeoPoint, in segments: ClosedRange<Int>) -> Match {
        var best = Match(segment: 0, point: points[0], alongM: 0, offsetM: .infinity)
        // Flat metres around the position: exact enough over a city block.
        let metresPerDegreeLat = 111_320.0
        let metresPerDegreeLon = 111_320.0 * cos(position.lat * .pi / 180)
        for index in segments {
            let a = points[index]
            let b = points[index + 1]
            let ax = (a.lon - position.lon) * metresPerDegreeLon
            let ay = (a.lat - position.lat) * metresPerDegreeLat
            let bx = (b.lon - position.lon) * metresPerDegreeLon
            let by = (b.lat - position.lat) * metresPerDegreeLat
            let dx = bx - ax
            let dy = by - ay
            let lengthSquared = dx * dx + dy * dy
            let t = lengthSquared == 0 ? 0 : max(0, min(1, -(ax * dx + ay * dy) / lengthSquared))
            let px = ax + t * dx
            let py = ay + t * dy
            let offset = (px * px + py * py).squareRoot()
            if offset < best.offsetM {
                best = Match(
                    segment: index,
                    point: GeoPoint(lat: a.lat + (b.lat - a.lat) * t, lon: a.lon + (b.lon - a.lon) * t),
                    alongM: along[index] + (along[index + 1] - along[index]) * t, offsetM: offset)
            }
        }
        return best
    }
}
