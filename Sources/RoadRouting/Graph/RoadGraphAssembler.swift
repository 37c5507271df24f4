/// Turns a list of arcs, ways and turn restrictions into a `RoadGraph`: splits restricted `via` nodes, sorts arcs
/// into compressed rows and marks the main strongly connected component. Used by the OSM import and by the
/// generated benchmark graphs alike.
public struct RoadGraphAssembler: Sendable {
    public struct Arc: Sendable {
        public var source: Int32
        public var target: Int32
        public var way: Int32
        public var distanceM: Float
        public var durationS: Float

        public init(source: Int32, target: Int32, way: Int32, distanceM: Float, durationS: Float) {
            self.source = source
            self.target = target
            self.way = way
            self.distanceM = distanceM
            self.durationS = durationS
        }
    }

    /// A restriction already resolved to graph indices.
    public struct Restriction: Sendable {
        public var kind: TurnRestriction.Kind
        public var fromWay: Int32
        public var viaNode: Int32
        public var toWay: Int32

        public init(kind: TurnRestriction.Kind, fromWay: Int32, viaNode: Int32, toWay: Int32) {
            self.kind = kind
            self.fromWay = fromWay
            self.viaNode = viaNode
            self.toWay = toWay
        }
    }

    public var profile: RoutingProfile.Name
    public var latE7: [Int32] = []
    public var lonE7: [Int32] = []
    public var osmNodeId: [Int64] = []
    public var arcs: [Arc] = []
    public var wayName: [Int32] = []
    public var wayClass: [UInt8] = []
    public var wayIsRoundabout: [Bool] = []
    public var wayOSMId: [Int64] = []
    public var names: [String] = [""]
    private var nameIndex: [String: Int32] = ["": 0]

    public init(profile: RoutingProfile.Name) { self.profile = profile }

    public mutating func addNode(osmId: Int64, latE7: Int32, lonE7: Int32) -> Int32 {
        osmNodeId.append(osmId)
        self.latE7.append(latE7)
        self.lonE7.append(lonE7)
        return Int32(self.latE7.count - 1)
    }

    public mutating func addWay(osmId: Int64, name: String, roadClass: RoadClass, isRoundabout: Bool) -> Int32 {
        let index: Int32
        if let known = nameIndex[name] {
            index = known
        } else {
            index = Int32(names.count)
            names.append(name)
            nameIndex[name] = index
        }
        wayName.append(index)
        wayClass.append(roadClass.rawValue)
        wayIsRoundabout.append(isRoundabout)
        wayOSMId.append(osmId)
        return Int32(wayName.count - 1)
    }

    /// Builds the graph. Returns it with the number of restrictions that could not be placed (a `via` node that is
    /// not where the `from` way arrives).
    public func assemble(restrictions: [Restriction]) -> (graph: RoadGraph, unusedRestrictions: Int) {
        let baseNodeCount = latE7.count
        var latitudes = latE7
        var longitudes = lonE7
        var osmIds = osmNodeId
        var originalNode = (0..<Int32(baseNodeCount)).map { $0 }
        var allArcs = arcs

        // Arcs leaving each base node, to copy them onto the node's restricted copies.
        var outgoing = [[Int]](repeating: [], count: baseNodeCount)
        var arrivingWays = Set<Int64>()
        var leavingWays = Set<Int64>()
        for (index, arc) in arcs.enumerated() {
            outgoing[Int(arc.source)].append(index)
            arrivingWays.insert(Int64(arc.target) << 32 | Int64(arc.way))
            leavingWays.insert(Int64(arc.source) << 32 | Int64(arc.way))
        }

        // One copy per (via node, from way); all restrictions of that pair decide its outgoing arcs.
        var groups: [Int64: [Restriction]] = [:]
        var unused = 0
        for restriction in restrictions {
            let key = Int64(restriction.viaNode) << 32 | Int64(restriction.fromWay)
            let leaves = leavingWays.contains(Int64(restriction.viaNode) << 32 | Int64(restriction.toWay))
            guard arrivingWays.contains(key), leaves || restriction.kind == .forbidden else {
                unused += 1
                continue
            }
            groups[key, default: []].append(restriction)
        }
        var copyOf: [Int64: Int32] = [:]
        for key in groups.keys.sorted() {
            let group = groups[key]!
            let via = Int(key >> 32)
            let copy = Int32(latitudes.count)
            latitudes.append(latE7[via])
            longitudes.append(lonE7[via])
            osmIds.append(osmNodeId[via])
            originalNode.append(Int32(via))
            copyOf[key] = copy
            let mandatory = Set(group.filter { $0.kind == .mandatory }.map(\.toWay))
            let forbidden = Set(group.filter { $0.kind == .forbidden }.map(\.toWay))
            for arcIndex in outgoing[via] {
                let way = arcs[arcIndex].way
                let allowed = mandatory.isEmpty ? !forbidden.contains(way) : mandatory.contains(way)
                guard allowed else { continue }
                var arc = arcs[arcIndex]
                arc.source = copy
                allArcs.append(arc)
            }
        }
        if !copyOf.isEmpty {
            for index in allArcs.indices {
                let key = Int64(allArcs[index].target) << 32 | Int64(allArcs[index].way)
                if let copy = copyOf[key] { allArcs[index].target = copy }
            }
        }

        // Counting sort by source into compressed rows.
        let nodeCount = latitudes.count
        var firstArc = [Int32](repeating: 0, count: nodeCount + 1)
        for arc in allArcs { firstArc[Int(arc.source) + 1] += 1 }
        for node in 0..<nodeCount { firstArc[node + 1] += firstArc[node] }
        var cursor = firstArc
        var arcTarget = [Int32](repeating: 0, count: allArcs.count)
        var arcWay = [Int32](repeating: 0, count: allArcs.count)
        var arcDistance = [Float](repeating: 0, count: allArcs.count)
        var arcDuration = [Float](repeating: 0, count: allArcs.count)
        for arc in allArcs {
            let slot = Int(cursor[Int(arc.source)])
            cursor[Int(arc.source)] += 1
            arcTarget[slot] = arc.target
            arcWay[slot] = arc.way
            arcDistance[slot] = arc.distanceM
            arcDuration[slot] = arc.durationS
        }
        var graph = RoadGraph(
            profile: profile, latE7: latitudes, lonE7: longitudes, osmNodeId: osmIds, originalNode: originalNode,
            firstArc: firstArc,
            arcTarget: arcTarget, arcWay: arcWay, arcDistanceM: arcDistance, arcDurationS: arcDuration,
            wayName: wayName, wayClass: wayClass, wayIsRoundabout: wayIsRoundabout, wayOSMId: wayOSMId, names: names,
            isInMainComponent: [])
        graph.isInMainComponent = StronglyConnectedComponents.largest(in: graph)
        return (graph, unused)
    }
}
