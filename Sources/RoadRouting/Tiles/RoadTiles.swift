import Foundation
import LogisticsCore

/// A web-map tile address (the usual slippy-map scheme: `z`, then `x` west→east and `y` north→south).
public struct TileAddress: Hashable, Sendable {
    public let z: Int
    public let x: Int
    public let y: Int

    public static let zoomRange = 0...20

    /// nil when outside the scheme (zoom 0–20, x and y within 0 ..< 2^z).
    public init?(z: Int, x: Int, y: Int) {
        guard Self.zoomRange.contains(z), (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y) else { return nil }
        self.z = z
        self.x = x
        self.y = y
    }

    /// Tile coordinates (fractional) of a position at zoom `z`.
    static func world(_ lat: Double, _ lon: Double, z: Int) -> (x: Double, y: Double) {
        let n = Double(1 << z)
        let latitude = max(-85.05112878, min(85.05112878, lat)) * .pi / 180
        return ((lon + 180) / 360 * n, (1 - log(tan(latitude) + 1 / cos(latitude)) / .pi) / 2 * n)
    }

    /// The latitude of a (fractional) tile row at zoom `z`.
    static func latitude(y: Double, z: Int) -> Double {
        atan(sinh(.pi * (1 - 2 * y / Double(1 << z)))) * 180 / .pi
    }
}

/// One tile of the road map as compact JSON: roads by way, each a list of lines in tile units (0 … `extent`
/// across, y downwards; points may lie a little outside so lines continue across tile edges), the coastline's lines,
/// and the sea as rings to fill with the even-odd rule.
public struct RoadTile: Encodable, Sendable, Equatable {
    public struct Road: Encodable, Sendable, Equatable {
        /// motorway, trunk, primary, secondary, tertiary, minor, service or link.
        public var `class`: String
        public var name: String?
        /// Each line as flat pairs: `[x0, y0, x1, y1, …]`.
        public var lines: [[Int]]
    }

    public var z: Int
    public var x: Int
    public var y: Int
    public var extent: Int
    public var roads: [Road]
    /// The coastline in this tile, as flat `[x0, y0, x1, y1, …]` lines.
    public var coast: [[Int]] = []
    /// Closed rings, flat like lines; filled even-odd they cover the sea (the tile, minus the land the coast encloses).
    /// Empty on land, and where the extract's coastline stops inside the tile.
    public var sea: [[Int]] = []
}

/// Cuts a loaded road graph into tiles for the browser map: the roads crossing a tile, simplified for its zoom
/// (small roads left out when zoomed out, points closer than a unit merged).
public struct RoadTiles: Sendable {
    public static let extent = 4096
    /// Points nearer than this to the line through their neighbours are dropped: 4 units is half a pixel of a
    /// 512-px tile, so the drawing does not change while zoomed-out tiles lose most of their points.
    static let tolerance = 4.0
    /// Segments are bucketed by the zoom-14 tile their midpoint falls in.
    static let indexZoom = 14

    let graph: RoadGraph
    /// A piece of road between two (original) nodes.
    struct Segment: Sendable {
        var from: Int32
        var to: Int32
        var way: Int32
    }

    /// Undirected segments (one per road piece) by bucket.
    let buckets: [Int64: [Segment]]
    let coast: CoastTiles

    public init(graph: RoadGraph) {
        var seen: Set<Int64> = []
        var buckets: [Int64: [Segment]] = [:]
        for node in 0..<Int32(graph.nodeCount) {
            for arc in graph.arcs(from: node) {
                let from = graph.originalNode[Int(node)]
                let to = graph.originalNode[Int(graph.arcTarget[arc])]
                guard from != to else { continue }
                // One-way pairs and restriction copies would draw a road twice.
                let key = (Int64(min(from, to)) << 32) | Int64(max(from, to))
                guard seen.insert(key).inserted else { continue }
                let a = graph.coordinate(from)
                let b = graph.coordinate(to)
                let mid = TileAddress.world((a.lat + b.lat) / 2, (a.lon + b.lon) / 2, z: Self.indexZoom)
                buckets[Self.bucket(Int(mid.x), Int(mid.y)), default: []].append(
                    Segment(from: from, to: to, way: graph.arcWay[arc]))
            }
        }
        self.graph = graph
        self.buckets = buckets
        self.coast = CoastTiles(coastline: graph.coastline)
    }

    static func bucket(_ x: Int, _ y: Int) -> Int64 { (Int64(x) << 32) | Int64(y) }

    /// What the index buckets under a tile hold, with one bucket of margin for pieces that cross its edge.
    static func items<Item>(near address: TileAddress, in buckets: [Int64: [Item]]) -> [Item] {
        let shift = indexZoom - address.z
        guard shift >= 0 else {
            let bx = address.x >> -shift
            let by = address.y >> -shift
            return (bx - 1...bx + 1).flatMap { x in (by - 1...by + 1).flatMap { y in buckets[bucket(x, y)] ?? [] } }
        }
        let lowX = (address.x << shift) - 1
        let lowY = (address.y << shift) - 1
        let highX = (address.x + 1) << shift
        let highY = (address.y + 1) << shift
        // Zoomed far out, reading every bucket is cheaper than looking up the empty ones.
        if (highX - lowX) * (highY - lowY) > buckets.count { return buckets.values.flatMap { $0 } }
        var found: [Item] = []
        for bx in lowX...highX {
            for by in lowY...highY { found += buckets[bucket(bx, by)] ?? [] }
        }
        return found
    }

    /// Road classes drawn at a zoom: the main network from afar, everything close up.
    static func drawn(_ roadClass: RoadClass, z: Int) -> Bool {
        switch roadClass {
        case .motorway, .trunk, .primary, .link: true
        case .secondary, .tertiary: z >= 11
        case .minor: z >= 13
        case .service: z >= 15
        }
    }

    public func tile(_ address: TileAddress) -> RoadTile {
        var byWay: [Int32: [[Int]]] = [:]
        let scale = Double(Self.extent)
        let arcs = Self.items(near: address, in: buckets)
        for segment in arcs {
            let way = segment.way
            guard let roadClass = RoadClass(rawValue: graph.wayClass[Int(way)]), Self.drawn(roadClass, z: address.z)
            else { continue }
            let a = graph.coordinate(segment.from)
            let b = graph.coordinate(segment.to)
            let pa = TileAddress.world(a.lat, a.lon, z: address.z)
            let pb = TileAddress.world(b.lat, b.lon, z: address.z)
            // Outside the tile (with a 1/16 margin) on one side: not this tile's road.
            let margin = 1.0 / 16
            let left = Double(address.x) - margin
            let right = Double(address.x + 1) + margin
            let top = Double(address.y) - margin
            let bottom = Double(address.y + 1) + margin
            if max(pa.x, pb.x) < left || min(pa.x, pb.x) > right || max(pa.y, pb.y) < top || min(pa.y, pb.y) > bottom {
                continue
            }
            let line = [
                Int(((pa.x - Double(address.x)) * scale).rounded()),
                Int(((pa.y - Double(address.y)) * scale).rounded()),
                Int(((pb.x - Double(address.x)) * scale).rounded()),
                Int(((pb.y - Double(address.y)) * scale).rounded()),
            ]
            if line[0] == line[2] && line[1] == line[3] { continue }
            var lines = byWay[way, default: []]
            // Join onto the previous piece of the same way when it continues from its end.
            if var last = lines.last, last[last.count - 2] == line[0], last[last.count - 1] == line[1] {
                last += [line[2], line[3]]
                lines[lines.count - 1] = last
            } else {
                lines.append(line)
            }
            byWay[way] = lines
        }
        let roads = byWay.sorted { $0.key < $1.key }.map { way, lines in
            let name = graph.name(ofWay: way)
            return RoadTile.Road(
                class: "\(RoadClass(rawValue: graph.wayClass[Int(way)]) ?? .minor)", name: name.isEmpty ? nil : name,
                lines: lines.map { LineSimplifier.simplify($0, tolerance: Self.tolerance) })
        }
        let (coast, sea) = coast.cut(address, extent: Self.extent)
        let coastLines = coast.map { LineSimplifier.simplify($0, tolerance: Self.tolerance) }
        // A sliver of land thinner than the tolerance is left with two points: no shape, so not a ring.
        let seaRings = sea.map { LineSimplifier.simplify($0, tolerance: Self.tolerance) }.filter { $0.count >= 6 }
        return RoadTile(
            z: address.z, x: address.x, y: address.y, extent: Self.extent, roads: roads, coast: coastLines,
            sea: seaRings)
    }
}
