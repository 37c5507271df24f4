/// Keeps, while a PBF file streams by, what the road graph needs: every node's coordinate (in sorted flat arrays,
/// 16 bytes a node), the ways the profile may drive, the turn restrictions that bind it, and the coastline.
struct OSMRoadCollector: OSMElementVisitor {
    struct RoadWay {
        var osmId: Int64
        var nodeIds: [Int64]
        var rules: WayRules
        var name: String
    }

    let profile: RoutingProfile
    var nodeIds: [Int64] = []
    var nodeLatE7: [Int32] = []
    var nodeLonE7: [Int32] = []
    var nodesSorted = true
    var ways: [RoadWay] = []
    var restrictions: [TurnRestriction] = []
    /// Restrictions whose `via` is a way: rare, and not modelled by node copies.
    var viaWayRestrictions = 0
    /// `natural=coastline` ways, for the map tiles' land and sea.
    var coastWays: [[Int64]] = []

    init(profile: RoutingProfile) { self.profile = profile }

    mutating func visitNode(id: Int64, latE7: Int32, lonE7: Int32) {
        if let last = nodeIds.last, last >= id { nodesSorted = false }
        nodeIds.append(id)
        nodeLatE7.append(latE7)
        nodeLonE7.append(lonE7)
    }

    mutating func visitWay(_ way: OSMWay) {
        if way.nodeIds.count >= 2, way.tags["natural"] == "coastline" { coastWays.append(way.nodeIds) }
        guard way.nodeIds.count >= 2, let rules = profile.rules(for: way.tags) else { return }
        let name = way.tags["name"] ?? way.tags["ref"] ?? ""
        ways.append(RoadWay(osmId: way.id, nodeIds: way.nodeIds, rules: rules, name: name))
    }

    mutating func visitRelation(_ relation: OSMRelation) {
        guard let kind = profile.restriction(from: relation.tags) else { return }
        let from = relation.members.first { $0.role == "from" && $0.type == .way }
        let to = relation.members.first { $0.role == "to" && $0.type == .way }
        guard let via = relation.members.first(where: { $0.role == "via" }), let from, let to else { return }
        guard via.type == .node else {
            viaWayRestrictions += 1
            return
        }
        restrictions.append(TurnRestriction(kind: kind, fromWay: from.id, viaNode: via.id, toWay: to.id))
    }

    /// Sorts the node arrays by id if the file was not sorted (the format only recommends it).
    mutating func sortNodesIfNeeded() {
        guard !nodesSorted else { return }
        let order = nodeIds.indices.sorted { nodeIds[$0] < nodeIds[$1] }
        nodeIds = order.map { nodeIds[$0] }
        nodeLatE7 = order.map { nodeLatE7[$0] }
        nodeLonE7 = order.map { nodeLonE7[$0] }
        nodesSorted = true
    }

    func nodeIndex(of id: Int64) -> Int? {
        var low = 0
        var high = nodeIds.count
        while low < high {
            let middle = (low + high) / 2
            if nodeIds[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low < nodeIds.count && nodeIds[low] == id ? low : nil
    }
}
