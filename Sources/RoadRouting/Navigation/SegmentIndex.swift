import Foundation
import LogisticsCore

/// Finds the road segment nearest to a position: a uniform grid of ~100 m cells over the main component's
/// segments, searched ring by ring outwards until nothing closer can remain.
public struct SegmentIndex: Sendable {
    /// Where a position lands on the road network.
    public struct Snap: Sendable, Equatable {
        /// Graph nodes at both ends of the segment (original nodes, not restriction copies).
        public var nodeA: Int32
        public var nodeB: Int32
        public var way: Int32
        /// Position along the segment from A (0) to B (1).
        public var fraction: Double
        public var point: GeoPoint
        public var distanceM: Double
    }

    private let segmentA: [Int32]
    private let segmentB: [Int32]
    private let segmentWay: [Int32]
    /// Cells as sorted keys with compressed rows of segment ids: no per-cell allocation, fast to build.
    private let cellKeys: [Int64]
    private let cellFirst: [Int32]
    private let cellSegments: [Int32]
    private let cellDegreesLat: Double
    private let cellDegreesLon: Double
    private let cellMetres: Double
    private let latE7: [Int32]
    private let lonE7: [Int32]

    public init(graph: RoadGraph, cellMetres: Double = 100) {
        var segmentA: [Int32] = []
        var segmentB: [Int32] = []
        var segmentWay: [Int32] = []
        for node in 0..<Int32(graph.nodeCount) where graph.originalNode[Int(node)] == node {
            guard graph.isInMainComponent[Int(node)] else { continue }
            for arc in graph.arcs(from: node) {
                let other = graph.originalNode[Int(graph.arcTarget[arc])]
                guard graph.isInMainComponent[Int(other)] else { continue }
                let way = graph.arcWay[arc]
                // Each two-way segment once: from its lower node, or from whichever end a one-way arc leaves.
                if node > other
                    && graph.arcs(from: other).contains(where: {
                        graph.originalNode[Int(graph.arcTarget[$0])] == node && graph.arcWay[$0] == way
                    })
                {
                    continue
                }
                segmentA.append(node)
                segmentB.append(other)
                segmentWay.append(way)
            }
        }
        let meanLat =
            graph.latE7.isEmpty ? 0 : Double(graph.latE7.reduce(0) { $0 + Int($1) }) / Double(graph.nodeCount) / 1e7
        cellDegreesLat = cellMetres / 111_195
        cellDegreesLon = cellMetres / (111_195 * max(0.05, cos(meanLat * .pi / 180)))
        self.cellMetres = cellMetres
        var entries: [(key: Int64, segment: Int32)] = []
        entries.reserveCapacity(segmentA.count * 2)
        for segment in segmentA.indices {
            let a = Int(segmentA[segment])
            let b = Int(segmentB[segment])
            let (x0, y0) = Self.cell(
                latE7: graph.latE7[a], lonE7: graph.lonE7[a], cellLat: cellDegreesLat, cellLon: cellDegreesLon)
            let (x1, y1) = Self.cell(
                latE7: graph.latE7[b], lonE7: graph.lonE7[b], cellLat: cellDegreesLat, cellLon: cellDegreesLon)
            for x in min(x0, x1)...max(x0, x1) {
                for y in min(y0, y1)...max(y0, y1) { entries.append((Self.key(x, y), Int32(segment))) }
            }
        }
        entries.sort { $0.key < $1.key }
        var cellKeys: [Int64] = []
        var cellFirst: [Int32] = []
        var cellSegments: [Int32] = []
        cellSegments.reserveCapacity(entries.count)
        for entry in entries {
            if cellKeys.last != entry.key {
                cellKeys.append(entry.key)
                cellFirst.append(Int32(cellSegments.count))
            }
            cellSegments.append(entry.segment)
        }
        cellFirst.append(Int32(cellSegments.count))
        self.cellKeys = cellKeys
        self.cellFirst = cellFirst
        self.cellSegments = cellSegments
        self.segmentA = segmentA
        self.segmentB = segmentB
        self.segmentWay = segmentWay
        self.latE7 = graph.latE7
        self.lonE7 = graph.lonE7
    }

    private static func cell(latE7: Int32, lonE7: Int32, cellLat: Double, cellLon: Double) -> (Int64, Int64) {
        (Int64((Double(lonE7) / 1e7 / cellLon).rounded(.down)), Int64((Double(latE7) / 1e7 / cellLat).rounded(.down)))
    }

    private static func key(_ x: Int64, _ y: Int64) -> Int64 { (x << 32) ^ (y & 0xFFFF_FFFF) }

    /// The nearest segment within `maxDistanceM`, or nil.
    public func nearest(to point: GeoPoint, maxDistanceM: Double) -> Snap? {
        let (cx, cy) = Self.cell(
            latE7: Int32(point.lat * 1e7), lonE7: Int32(point.lon * 1e7), cellLat: cellDegreesLat,
            cellLon: cellDegreesLon)
        var best: Snap?
        let maxRing = Int64((maxDistanceM / cellMetres).rounded(.up)) + 1
        var ring: Int64 = 0
        while ring <= maxRing {
            for x in (cx - ring)...(cx + ring) {
                for y in (cy - ring)...(cy + ring) where abs(x - cx) == ring || abs(y - cy) == ring {
                    for segment in segments(inCell: Self.key(x, y)) {
                        let candidate = project(point, onto: Int(segment))
                        if candidate.distanceM < best?.distanceM ?? .infinity { best = candidate }
                    }
                }
            }
            // Everything outside the searched square is at least `ring` cells away.
            if let best, best.distanceM <= Double(ring) * cellMetres { break }
            ring += 1
        }
        guard let best, best.distanceM <= maxDistanceM else { return nil }
        return best
    }

    /// Every segment within `maxDistanceM`, nearest first, at most `limit`: a map matcher's candidates for one fix.
    public func candidates(near point: GeoPoint, maxDistanceM: Double, limit: Int) -> [Snap] {
        let (cx, cy) = Self.cell(
            latE7: Int32(point.lat * 1e7), lonE7: Int32(point.lon * 1e7), cellLat: cellDegreesLat,
            cellLon: cellDegreesLon)
        let reach = Int64((maxDistanceM / cellMetres).rounded(.up)) + 1
        var seen = Set<Int32>()
        var found: [Snap] = []
        for x in (cx - reach)...(cx + reach) {
            for y in (cy - reach)...(cy + reach) {
                for segment in segments(inCell: Self.key(x, y)) where seen.insert(segment).inserted {
                    let candidate = project(point, onto: Int(segment))
                    if candidate.distanceM <= maxDistanceM { found.append(candidate) }
                }
            }
        }
        found.sort { $0.distanceM < $1.distanceM }
        return Array(found.prefix(limit))
    }

    private func segments(inCell key: Int64) -> ArraySlice<Int32> {
        var low = 0
        var high = cellKeys.count
        while low < high {
            let middle = (low + high) / 2
            if cellKeys[middle] < key { low = middle + 1 } else { high = middle }
        }
        guard low < cellKeys.count, cellKeys[low] == key else { return [] }
        return cellSegments[Int(cellFirst[low])..<Int(cellFirst[low + 1])]
    }

    private func project(_ point: GeoPoint, onto segment: Int) -> Snap {
        let a = Int(segmentA[segment])
        let b = Int(segmentB[segment])
        let pointA = GeoPoint(latE7: latE7[a], lonE7: lonE7[a])
        let pointB = GeoPoint(latE7: latE7[b], lonE7: lonE7[b])
        // A local flat projection is exact enough over a road segment.
        let scale = cos(point.lat * .pi / 180)
        let ax = (pointA.lon - point.lon) * scale
        let ay = pointA.lat - point.lat
        let bx = (pointB.lon - point.lon) * scale
        let by = pointB.lat - point.lat
        let dx = bx - ax
        let dy = by - ay
        let lengthSquared = dx * dx + dy * dy
        let fraction = lengthSquared == 0 ? 0 : min(1, max(0, -(ax * dx + ay * dy) / lengthSquared))
        let snapped = GeoPoint(
            lat: pointA.lat + (pointB.lat - pointA.lat) * fraction,
            lon: pointA.lon + (pointB.lon - pointA.lon) * fraction)
        return Snap(
            nodeA: Int32(a), nodeB: Int32(b), way: segmentWay[segment], fraction: fraction, point: snapped,
            distanceM: point.distanceM(to: snapped))
    }
}
