import LogisticsCore

/// Builds a routable `RoadMap` from an OpenStreetMap PBF file.
public enum MapImporter {
    /// What the import reports while it works, for a progress line.
    public enum Stage: Sendable {
        case reading(fraction: Double)
        case buildingGraph
        case contracting(metric: RouteMetric, fraction: Double)
    }

    public struct Report: Sendable {
        public var nodes = 0
        public var ways = 0
        public var arcs = 0
        public var restrictions = 0
        public var restrictionsApplied = 0
        public var viaWayRestrictionsSkipped = 0
        public var segmentsWithMissingNodes = 0
        public var coastlinePoints = 0
    }

    public static func importGraph(
        pbf reader: PBFReader, profile: RoutingProfile, honourRestrictions: Bool = true,
        progress: (Stage) -> Void = { _ in }
    ) throws(MapImportError) -> (graph: RoadGraph, report: Report) {
        var collector = OSMRoadCollector(profile: profile)
        try reader.read(into: &collector) { progress(.reading(fraction: $0)) }
        progress(.buildingGraph)
        collector.sortNodesIfNeeded()
        guard !collector.ways.isEmpty else { throw .empty("no way is routable for the \(profile.name) profile") }

        var assembler = RoadGraphAssembler(profile: profile.name)
        var report = Report()
        var graphNode: [Int64: Int32] = [:]
        var graphWay: [Int64: Int32] = [:]
        func node(_ osmId: Int64) -> Int32? {
            if let known = graphNode[osmId] { return known }
            guard let index = collector.nodeIndex(of: osmId) else { return nil }
            let added = assembler.addNode(
                osmId: osmId, latE7: collector.nodeLatE7[index], lonE7: collector.nodeLonE7[index])
            graphNode[osmId] = added
            return added
        }
        for way in collector.ways {
            let wayIndex = assembler.addWay(
                osmId: way.osmId, name: way.name, roadClass: way.rules.roadClass, isRoundabout: way.rules.isRoundabout)
            graphWay[way.osmId] = wayIndex
            let metresPerSecond = way.rules.speedKmh / 3.6
            for (fromId, toId) in zip(way.nodeIds, way.nodeIds.dropFirst()) where fromId != toId {
                guard let from = node(fromId), let to = node(toId) else {
                    report.segmentsWithMissingNodes += 1
                    continue
                }
                let distance = GeoPoint(latE7: assembler.latE7[Int(from)], lonE7: assembler.lonE7[Int(from)])
                    .distanceM(to: GeoPoint(latE7: assembler.latE7[Int(to)], lonE7: assembler.lonE7[Int(to)]))
                let duration = Float(distance / metresPerSecond)
                if way.rules.forward {
                    assembler.arcs.append(
                        .init(source: from, target: to, way: wayIndex, distanceM: Float(distance), durationS: duration))
                }
                if way.rules.backward {
                    assembler.arcs.append(
                        .init(source: to, target: from, way: wayIndex, distanceM: Float(distance), durationS: duration))
                }
            }
        }
        var restrictions: [RoadGraphAssembler.Restriction] = []
        if honourRestrictions {
            for restriction in collector.restrictions {
                guard let from = graphWay[restriction.fromWay], let to = graphWay[restriction.toWay],
                    let via = graphNode[restriction.viaNode]
                else { continue }
                restrictions.append(.init(kind: restriction.kind, fromWay: from, viaNode: via, toWay: to))
            }
        }
        let (assembled, unused) = assembler.assemble(restrictions: restrictions)
        var graph = assembled
        graph.coastline = coastline(collector)
        report.coastlinePoints = graph.coastline.latE7.count
        report.nodes = graph.nodeCount
        report.ways = collector.ways.count
        report.arcs = graph.arcCount
        report.restrictions = collector.restrictions.count
        report.restrictionsApplied = restrictions.count - unused
        report.viaWayRestrictionsSkipped = collector.viaWayRestrictions
        return (graph, report)
    }
}

extension MapImporter {
    /// The coastline ways joined into lines; a line is split where the extract lacks one of its nodes.
    static func coastline(_ collector: OSMRoadCollector) -> Coastline {
        var coastline = Coastline()
        for line in Coastline.join(collector.coastWays) {
            var piece: [(latE7: Int32, lonE7: Int32)] = []
            for id in line {
                if let index = collector.nodeIndex(of: id) {
                    piece.append((collector.nodeLatE7[index], collector.nodeLonE7[index]))
                } else {
                    coastline.append(line: piece)
                    piece = []
                }
            }
            coastline.append(line: piece)
        }
        return coastline
    }
}

extension MapImporter.Stage {
    /// A progress line for a terminal or a log, the fraction rounded down to whole `step` percents.
    public func progressLine(step: Int) -> String {
        func percent(_ fraction: Double) -> Int { Int(fraction * 100) / step * step }
        switch self {
        case .reading(let fraction): return "reading OpenStreetMap data \(percent(fraction))%"
        case .buildingGraph: return "building the road graph"
        case .contracting(let metric, let fraction):
            return "contracting for \(metric == .time ? "fastest" : "shortest") routes \(percent(fraction))%"
        }
    }
}

extension GeoPoint {
    init(latE7: Int32, lonE7: Int32) { self.init(lat: Double(latE7) / 1e7, lon: Double(lonE7) / 1e7) }
}
