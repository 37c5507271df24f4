import LogisticsCore

/// A directed road graph as flat arrays (compressed sparse rows), cheap to save, load and share between threads.
///
/// Nodes are OSM nodes of routable ways. A node that is the `via` of turn restrictions also has copies: the arcs
/// that arrive along a restricted `from` way lead to a copy whose outgoing arcs leave out the forbidden turns, so
/// ordinary node-based searches (Dijkstra, contraction hierarchies) honour the restrictions exactly.
public struct RoadGraph: Sendable {
    public var profile: RoutingProfile.Name
    /// Node coordinates in 1e-7 degrees.
    public var latE7: [Int32]
    public var lonE7: [Int32]
    /// OSM ids of the nodes (copies repeat their `via` node's id; generated graphs count from 1).
    public var osmNodeId: [Int64]
    /// For each node, the node it stands for: itself, or the restricted `via` node a copy was made of.
    public var originalNode: [Int32]
    /// Arcs leaving node `n` are `firstArc[n] ..< firstArc[n + 1]`.
    public var firstArc: [Int32]
    public var arcTarget: [Int32]
    public var arcWay: [Int32]
    public var arcDistanceM: [Float]
    /// Free-flow travel time from the profile's speed for the way.
    public var arcDurationS: [Float]
    /// Per way: index into `names`, road class, roundabout flag, OSM id.
    public var wayName: [Int32]
    public var wayClass: [UInt8]
    public var wayIsRoundabout: [Bool]
    public var wayOSMId: [Int64]
    public var names: [String]
    /// Nodes in the largest strongly connected component; only their segments are offered for snapping, so a
    /// position never lands on a parking aisle the road network cannot leave.
    public var isInMainComponent: [Bool]
    /// Drawn on the map tiles only.
    public var coastline = Coastline()

    public var nodeCount: Int { latE7.count }
    public var arcCount: Int { arcTarget.count }

    public func arcs(from node: Int32) -> Range<Int> { Int(firstArc[Int(node)])..<Int(firstArc[Int(node) + 1]) }

    public func coordinate(_ node: Int32) -> GeoPoint {
        GeoPoint(lat: Double(latE7[Int(node)]) / 1e7, lon: Double(lonE7[Int(node)]) / 1e7)
    }

    public func name(ofWay way: Int32) -> String { names[Int(wayName[Int(way)])] }

    /// The arcs leaving `source` along `way` whose target stands for `target` (itself or a restriction copy of it).
    public func arcs(from source: Int32, toward target: Int32, along way: Int32) -> [Int] {
        arcs(from: source).filter { originalNode[Int(arcTarget[$0])] == target && arcWay[$0] == way }
    }

    /// Original nodes of the main component: the places a route may start or end.
    public var routableNodes: [Int32] {
        (0..<Int32(nodeCount)).filter { isInMainComponent[Int($0)] && originalNode[Int($0)] == $0 }
    }

    /// Integer arc weights for a search: milliseconds for the fastest route, centimetres for the shortest.
    public func weights(_ metric: RouteMetric) -> [UInt32] {
        switch metric {
        case .time: arcDurationS.map { Self.timeWeight(seconds: Double($0)) }
        case .distance: arcDistanceM.map { UInt32(max(1, ($0 * 100).rounded())) }
        }
    }

    /// A duration as a fastest-route weight: whole milliseconds, at least 1, and small enough that a path of many
    /// such weights cannot overflow a search's sums.
    public static func timeWeight(seconds: Double) -> UInt32 {
        UInt32(max(1, min(Double(UInt32.max / 4), (seconds * 1000).rounded())))
    }

    /// Approximate bytes held by the arrays.
    public var memoryBytes: Int {
        latE7.count * (4 * 3 + 8) + firstArc.count * 4 + arcTarget.count * (4 + 4 + 4 + 4) + wayName.count
            * (4 + 1 + 1 + 8)
            + names.reduce(0) { $0 + $1.utf8.count + 16 } + isInMainComponent.count + coastline.latE7.count * 8
    }
}

/// What "best" means for a route.
public enum RouteMetric: String, Sendable, CaseIterable, Codable {
    case time
    case distance
}
