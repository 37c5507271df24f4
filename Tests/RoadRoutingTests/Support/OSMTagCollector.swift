import LogisticsCore
import RoadRouting
import Threads

/// Collects raw ways and restriction relations straight from the PBF, so tests can compare the graph with the tags.
struct OSMTagCollector: OSMElementVisitor {
    var ways: [Int64: OSMWay] = [:]
    var restrictions: [OSMRelation] = []

    mutating func visitNode(id: Int64, latE7: Int32, lonE7: Int32) {}

    mutating func visitWay(_ way: OSMWay) {
        if way.tags["highway"] != nil { ways[way.id] = way }
    }

    mutating func visitRelation(_ relation: OSMRelation) {
        if relation.tags["type"] == "restriction" { restrictions.append(relation) }
    }

    /// Awaited, decoded on a thread of its own: see `MonacoFixture`.
    static var monaco: OSMTagCollector { get async { await decoding.value } }

    private static let decoding = Task {
        await OwnThread.run {
            var collector = OSMTagCollector()
            do {
                try PBFReader(path: MonacoFixture.pbfPath).read(into: &collector)
            } catch {
                fatalError("the committed Monaco extract must decode: \(error)")
            }
            return collector
        }
    }
}

extension RoadGraph {
    /// The graph node of an OSM node (the original, not a restriction copy).
    func node(osm id: Int64) -> Int32? {
        guard let index = osmNodeId.firstIndex(of: id) else { return nil }
        return originalNode[index]
    }

    /// Whether an arc `from → to` (original nodes) exists along the given OSM way.
    func hasArc(from: Int32, to: Int32, osmWay: Int64) -> Bool {
        arcs(from: from).contains { originalNode[Int(arcTarget[$0])] == to && wayOSMId[Int(arcWay[$0])] == osmWay }
    }
}
