import Foundation

/// The prepared map on disk: a versioned little-endian file of the graph's and hierarchies' flat arrays, written
/// and read as raw memory so a city graph loads in milliseconds instead of being imported again.
public enum RoadMapFile {
    static let magic = Array("RLGRAPH\0".utf8)
    static let endMarker = Array("END!".utf8)
    /// Bump when the layout changes; older files are then rejected with a clear message and re-imported.
    public static let version: UInt32 = 2

    public static func write(_ map: RoadMap, to path: String) throws(MapImportError) {
        var writer = Writer()
        writer.bytes.append(contentsOf: magic)
        writer.append(version)
        writer.append(UInt8(RoutingProfile.Name.allCases.firstIndex(of: map.profile)!))
        let graph = map.graph
        writer.append(graph.latE7)
        writer.append(graph.lonE7)
        writer.append(graph.osmNodeId)
        writer.append(graph.originalNode)
        writer.append(graph.firstArc)
        writer.append(graph.arcTarget)
        writer.append(graph.arcWay)
        writer.append(graph.arcDistanceM)
        writer.append(graph.arcDurationS)
        writer.append(graph.wayName)
        writer.append(graph.wayClass)
        writer.append(graph.wayIsRoundabout.map { $0 ? UInt8(1) : 0 })
        writer.append(graph.wayOSMId)
        writer.append(graph.isInMainComponent.map { $0 ? UInt8(1) : 0 })
        writer.append(UInt64(graph.names.count))
        for name in graph.names { writer.append(Array(name.utf8)) }
        let metrics = RouteMetric.allCases.filter { map.hierarchies[$0] != nil }
        writer.append(UInt8(metrics.count))
        for metric in metrics {
            let hierarchy = map.hierarchies[metric]!
            writer.append(UInt8(RouteMetric.allCases.firstIndex(of: metric)!))
            writer.append(hierarchy.forwardFirst)
            writer.append(hierarchy.forwardEdges)
            writer.append(hierarchy.backwardFirst)
            writer.append(hierarchy.backwardEdges)
        }
        writer.append(graph.coastline.lineStart)
        writer.append(graph.coastline.latE7)
        writer.append(graph.coastline.lonE7)
        writer.append(checksum(writer.bytes[...]))
        writer.bytes.append(contentsOf: endMarker)
        let temporary = path + ".partial"
        do {
            try Data(writer.bytes).write(to: URL(fileURLWithPath: temporary))
            // Rename so a crash mid-write never leaves a half file under the real name.
            _ = try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.moveItem(atPath: temporary, toPath: path)
        } catch {
            throw .unreadable("cannot write \(path): \(error.localizedDescription)")
        }
    }

    public static func read(from path: String) throws(MapImportError) -> RoadMap {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable("\(path) does not exist or is not readable")
        }
        return try read(bytes: [UInt8](data))
    }

    public static func read(bytes: [UInt8]) throws(MapImportError) -> RoadMap {
        var reader = Reader(bytes: bytes)
        guard bytes.count >= magic.count + endMarker.count, Array(bytes.prefix(magic.count)) == magic else {
            throw .incompatibleGraph("not a Rider Logistics graph file")
        }
        reader.position = magic.count
        let fileVersion: UInt32 = try reader.scalar()
        guard fileVersion == version else {
            throw .incompatibleGraph(
                "graph format version \(fileVersion), this build reads version \(version); import the map again")
        }
        // The checksum sits just before the end marker and covers everything before it.
        let checksumOffset = bytes.count - endMarker.count - 8
        guard checksumOffset > magic.count,
            bytes.withUnsafeBytes({ $0.loadUnaligned(fromByteOffset: checksumOffset, as: UInt64.self) })
                == checksum(bytes[..<checksumOffset])
        else { throw .incompatibleGraph("the file is damaged (checksum mismatch)") }
        let profileIndex: UInt8 = try reader.scalar()
        guard Int(profileIndex) < RoutingProfile.Name.allCases.count else {
            throw .incompatibleGraph("unknown profile")
        }
        var graph = RoadGraph(
            profile: RoutingProfile.Name.allCases[Int(profileIndex)], latE7: try reader.array(),
            lonE7: try reader.array(),
            osmNodeId: try reader.array(), originalNode: try reader.array(), firstArc: try reader.array(),
            arcTarget: try reader.array(), arcWay: try reader.array(), arcDistanceM: try reader.array(),
            arcDurationS: try reader.array(), wayName: try reader.array(), wayClass: try reader.array(),
            wayIsRoundabout: (try reader.array() as [UInt8]).map { $0 != 0 }, wayOSMId: try reader.array(),
            names: [], isInMainComponent: (try reader.array() as [UInt8]).map { $0 != 0 })
        let nameCount: UInt64 = try reader.scalar()
        guard nameCount <= UInt64(bytes.count) else { throw .incompatibleGraph("corrupt name table") }
        for _ in 0..<nameCount { graph.names.append(String(decoding: try reader.array() as [UInt8], as: UTF8.self)) }
        try check(graph)
        var hierarchies: [RouteMetric: ContractionHierarchy] = [:]
        let metricCount: UInt8 = try reader.scalar()
        for _ in 0..<metricCount {
            let metricIndex: UInt8 = try reader.scalar()
            guard Int(metricIndex) < RouteMetric.allCases.count else { throw .incompatibleGraph("unknown metric") }
            let metric = RouteMetric.allCases[Int(metricIndex)]
            let hierarchy = ContractionHierarchy(
                metric: metric, forwardFirst: try reader.array(), forwardEdges: try reader.array(),
                backwardFirst: try reader.array(), backwardEdges: try reader.array())
            try check(hierarchy, nodeCount: graph.nodeCount, arcCount: graph.arcCount)
            hierarchies[metric] = hierarchy
        }
        graph.coastline.lineStart = try reader.array()
        graph.coastline.latE7 = try reader.array()
        graph.coastline.lonE7 = try reader.array()
        guard graph.coastline.isConsistent else { throw .incompatibleGraph("inconsistent coastline arrays") }
        guard reader.position == checksumOffset, Array(bytes[(checksumOffset + 8)...]) == endMarker else {
            throw .incompatibleGraph("the file is truncated or has trailing data")
        }
        return RoadMap(graph: graph, hierarchies: hierarchies)
    }

    /// FNV-1a over 8-byte words: cheap enough for a few hundred MiB, and catches damaged or half-copied files.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        bytes.withUnsafeBytes { raw in
            let words = raw.count / 8
            for index in 0..<words {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) &* 0x100_0000_01b3
            }
            for index in (words * 8)..<raw.count { hash = (hash ^ UInt64(raw[index])) &* 0x100_0000_01b3 }
        }
        return hash
    }

    /// Index bounds, so a damaged file is refused here instead of crashing a query later.
    private static func check(_ graph: RoadGraph) throws(MapImportError) {
        let nodes = graph.nodeCount
        let arcs = graph.arcCount
        let ways = graph.wayName.count
        guard graph.lonE7.count == nodes, graph.osmNodeId.count == nodes, graph.originalNode.count == nodes,
            graph.isInMainComponent.count == nodes, graph.firstArc.count == nodes + 1,
            graph.arcWay.count == arcs, graph.arcDistanceM.count == arcs, graph.arcDurationS.count == arcs,
            graph.wayClass.count == ways, graph.wayIsRoundabout.count == ways, graph.wayOSMId.count == ways,
            graph.firstArc.first == 0, graph.firstArc.last.map(Int.init) == arcs,
            zip(graph.firstArc, graph.firstArc.dropFirst()).allSatisfy({ $0 <= $1 }),
            graph.arcTarget.allSatisfy({ $0 >= 0 && Int($0) < nodes }),
            graph.originalNode.allSatisfy({ $0 >= 0 && Int($0) < nodes }),
            graph.arcWay.allSatisfy({ $0 >= 0 && Int($0) < ways }),
            graph.wayName.allSatisfy({ $0 >= 0 && Int($0) < graph.names.count })
        else { throw .incompatibleGraph("inconsistent graph arrays") }
    }

    private static func check(_ hierarchy: ContractionHierarchy, nodeCount: Int, arcCount: Int) throws(MapImportError) {
        for (first, edges) in [
            (hierarchy.forwardFirst, hierarchy.forwardEdges), (hierarchy.backwardFirst, hierarchy.backwardEdges),
        ] {
            guard first.count == nodeCount + 1, first.first == 0, first.last.map(Int.init) == edges.count,
                zip(first, first.dropFirst()).allSatisfy({ $0 <= $1 }),
                edges.allSatisfy({
                    $0.other >= 0 && Int($0.other) < nodeCount
                        && ($0.via >= 0 ? Int($0.via) < nodeCount : Int(-($0.via + 1)) < arcCount)
                })
            else { throw .incompatibleGraph("inconsistent hierarchy arrays") }
        }
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func append<T: BitwiseCopyable>(_ value: T) {
            withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
        }

        mutating func append<T: BitwiseCopyable>(_ values: [T]) {
            append(UInt64(values.count))
            values.withUnsafeBytes { bytes.append(contentsOf: $0) }
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func scalar<T: BitwiseCopyable>() throws(MapImportError) -> T {
            let size = MemoryLayout<T>.size
            guard bytes.count - position >= size else { throw .incompatibleGraph("the file is truncated") }
            let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: T.self) }
            position += size
            return value
        }

        mutating func array<T: BitwiseCopyable>() throws(MapImportError) -> [T] {
            let count: UInt64 = try scalar()
            let stride = MemoryLayout<T>.stride
            guard count <= UInt64(bytes.count - position) / UInt64(max(1, stride)) else {
                throw .incompatibleGraph("an array runs past the end of the file")
            }
            let length = Int(count) * stride
            let values = [T](unsafeUninitializedCapacity: Int(count)) { buffer, initialized in
                bytes.withUnsafeBytes { source in
                    UnsafeMutableRawBufferPointer(buffer).copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: source[position..<(position + length)]))
                }
                initialized = Int(count)
            }
            position += length
            return values
        }
    }
}
