/// The parts of OpenStreetMap that a road router reads. Coordinates are kept in 1e-7 degrees, as OSM stores them.
public struct OSMWay: Sendable {
    public var id: Int64
    public var nodeIds: [Int64]
    public var tags: [String: String]
}

public struct OSMRelation: Sendable {
    public enum MemberType: UInt8, Sendable {
        case node = 0
        case way = 1
        case relation = 2
    }

    public struct Member: Sendable, Equatable {
        public var type: MemberType
        public var id: Int64
        public var role: String
    }

    public var id: Int64
    public var members: [Member]
    public var tags: [String: String]
}

/// Receives elements in file order while a PBF file is decoded, so nothing but what the visitor keeps stays in memory.
public protocol OSMElementVisitor {
    mutating func visitNode(id: Int64, latE7: Int32, lonE7: Int32)
    mutating func visitWay(_ way: OSMWay)
    mutating func visitRelation(_ relation: OSMRelation)
}

/// Counts elements, the way `osmium fileinfo -e` does.
public struct OSMElementCounts: OSMElementVisitor, Sendable, Equatable {
    public var nodes = 0
    public var ways = 0
    public var relations = 0

    public init(nodes: Int = 0, ways: Int = 0, relations: Int = 0) {
        self.nodes = nodes
        self.ways = ways
        self.relations = relations
    }

    public mutating func visitNode(id: Int64, latE7: Int32, lonE7: Int32) { nodes += 1 }
    public mutating func visitWay(_ way: OSMWay) { ways += 1 }
    public mutating func visitRelation(_ relation: OSMRelation) { relations += 1 }
}
