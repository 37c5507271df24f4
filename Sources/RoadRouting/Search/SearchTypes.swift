/// A node where a search starts or ends, with the cost already spent (or still to spend) on a partial segment.
public struct SearchSeed: Sendable, Equatable {
    public var node: Int32
    public var cost: UInt64

    public init(node: Int32, cost: UInt64) {
        self.node = node
        self.cost = cost
    }
}

/// The best path between seed sets: the arcs in driving order, from a source seed's node to a target seed's node.
public struct SearchPath: Sendable, Equatable {
    /// Total cost, including both seeds' costs.
    public var cost: UInt64
    public var arcs: [Int]
    public var sourceNode: Int32
    public var targetNode: Int32
}
