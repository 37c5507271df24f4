import LogisticsCore
import RoadRouting

/// A generated road network for benchmarks: a grid of blocks ~100 m apart with a road hierarchy (a primary road
/// every 50 blocks, a secondary every 10, residential streets between), some missing links and some one-way
/// streets, and jittered positions so turns are not all right angles. Real extracts of a million nodes are too
/// large to keep in the repository; this one is generated identically from its seed.
public enum GridRoadNetwork {
    public static func generate(side: Int, seed: UInt64 = 42, profile: RoutingProfile.Name = .motorcycle) -> RoadGraph {
        var random = SeededGenerator(state: seed)
        var assembler = RoadGraphAssembler(profile: profile)
        let originLat = 19.0
        let originLon = 72.8
        let stepLat = 100.0 / 111_195
        let stepLon = 100.0 / (111_195 * 0.9455)  // cos(19°)
        for row in 0..<side {
            for column in 0..<side {
                let jitterLat = Double.random(in: -0.2...0.2, using: &random) * stepLat
                let jitterLon = Double.random(in: -0.2...0.2, using: &random) * stepLon
                _ = assembler.addNode(
                    osmId: Int64(row * side + column + 1),
                    latE7: Int32(((originLat + Double(row) * stepLat + jitterLat) * 1e7).rounded()),
                    lonE7: Int32(((originLon + Double(column) * stepLon + jitterLon) * 1e7).rounded()))
            }
        }
        let classes: [(RoadClass, Double, String)] = [
            (.primary, 55, "Primary"), (.secondary, 40, "Secondary"), (.minor, 25, "Street"),
        ]
        var wayOf: [Int: Int32] = [:]
        func way(_ kind: Int, horizontal: Bool, line: Int) -> Int32 {
            let key = (kind * 2 + (horizontal ? 1 : 0)) * 1_000_000 + line
            if let known = wayOf[key] { return known }
            let name = "\(classes[kind].2) \(horizontal ? "Row" : "Column") \(line)"
            let added = assembler.addWay(
                osmId: Int64(key), name: name, roadClass: classes[kind].0, isRoundabout: false)
            wayOf[key] = added
            return added
        }
        func kind(of line: Int) -> Int { line % 50 == 0 ? 0 : line % 10 == 0 ? 1 : 2 }
        func link(_ a: Int, _ b: Int, line: Int, horizontal: Bool) {
            let lineKind = kind(of: line)
            // Residential links go missing (5 %) or one-way (10 %); the main roads stay whole.
            if lineKind == 2 && Double.random(in: 0..<1, using: &random) < 0.05 { return }
            let oneway = lineKind == 2 && Double.random(in: 0..<1, using: &random) < 0.10
            let wayIndex = way(lineKind, horizontal: horizontal, line: line)
            let distance = Self.point(assembler.latE7[a], assembler.lonE7[a])
                .distanceM(to: Self.point(assembler.latE7[b], assembler.lonE7[b]))
            let speed = classes[lineKind].1 * Double.random(in: 0.8...1.2, using: &random) / 3.6
            let duration = Float(distance / speed)
            assembler.arcs.append(
                .init(
                    source: Int32(a), target: Int32(b), way: wayIndex, distanceM: Float(distance), durationS: duration))
            if !oneway {
                assembler.arcs.append(
                    .init(
                        source: Int32(b), target: Int32(a), way: wayIndex, distanceM: Float(distance),
                        durationS: duration))
            }
        }
        for row in 0..<side {
            for column in 0..<side {
                let node = row * side + column
                if column + 1 < side { link(node, node + 1, line: row, horizontal: true) }
                if row + 1 < side { link(node, node + side, line: column, horizontal: false) }
            }
        }
        return assembler.assemble(restrictions: []).graph
    }

    private static func point(_ latE7: Int32, _ lonE7: Int32) -> GeoPoint {
        GeoPoint(lat: Double(latE7) / 1e7, lon: Double(lonE7) / 1e7)
    }
}
