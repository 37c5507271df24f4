import Foundation
import LogisticsCore

/// Travel times and distances from every source to every destination by the fastest road path, in the sense of
/// OSRM's table service: nil where no legal path joins the two or a position is too far from any road.
public struct TravelTable: Sendable, Equatable {
    public var durationsS: [[Double?]]
    public var distancesM: [[Double?]]
    /// Positions farther than the snapping limit from any road: their rows or columns are all nil.
    public var unroutableSources: [Int]
    public var unroutableDestinations: [Int]
}

extension RoutePlanner {
    /// The fastest road path's duration and length between every pair, from one search per position.
    public func table(from sources: [GeoPoint], to destinations: [GeoPoint]) throws(RoutingError) -> TravelTable {
        guard let snapshot = map.snapshot(.time) else { throw .profileNotLoaded(map.graph.profile) }
        let (hierarchy, weights, lengths) = (snapshot.hierarchy, snapshot.weights, snapshot.lengths(graph: map.graph))
        let graph = map.graph
        func cost(_ piece: RoutePiece) -> UInt64 { piece.cost(weights) }
        func length(_ piece: RoutePiece) -> Double { Double(graph.arcDistanceM[piece.arc]) * (piece.to - piece.from) }
        let startPieces = sources.map { point in
            map.index.nearest(to: point, maxDistanceM: maxSnapDistanceM).map { sourcePieces($0, heading: nil) }
        }
        let endPieces = destinations.map { point in
            map.index.nearest(to: point, maxDistanceM: maxSnapDistanceM).map { targetPieces($0) }
        }
        let sourceSeeds = startPieces.map { pieces in
            (pieces ?? []).map { MatrixSeed(node: graph.arcTarget[$0.arc], cost: cost($0), lengthM: length($0)) }
        }
        let targetSeeds = endPieces.map { pieces in
            (pieces ?? []).map {
                MatrixSeed(node: graph.sourceNode(ofArc: $0.arc), cost: cost($0), lengthM: length($0))
            }
        }
        var cells = ManyToManyQuery(hierarchy: hierarchy, lengths: lengths).table(
            sources: sourceSeeds, targets: targetSeeds)
        // Both ends on one segment, in a drivable direction: the direct stretch may beat any path via the nodes.
        for (row, starts) in startPieces.enumerated() {
            for (column, ends) in endPieces.enumerated() {
                for start in starts ?? [] {
                    for end in ends ?? [] where end.arc == start.arc && end.to >= start.from {
                        let direct = RoutePiece(arc: start.arc, from: start.from, to: end.to)
                        if cost(direct) < cells[row][column]?.cost ?? .max {
                            cells[row][column] = MatrixCell(cost: cost(direct), lengthM: length(direct))
                        }
                    }
                }
            }
        }
        return TravelTable(
            durationsS: cells.map { $0.map { $0.map { (Double($0.cost) / 1000 * 10).rounded() / 10 } } },
            distancesM: cells.map { $0.map { $0.map { ($0.lengthM * 10).rounded() / 10 } } },
            unroutableSources: startPieces.indices.filter { startPieces[$0] == nil },
            unroutableDestinations: endPieces.indices.filter { endPieces[$0] == nil })
    }
}
