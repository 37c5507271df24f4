import Foundation

/// The coastline cut into tiles: its lines, and the sea as rings to fill with the even-odd rule (the whole tile,
/// minus the land the coast encloses). The land is on the coast's left, as OpenStreetMap draws it.
struct CoastTiles: Sendable {
    struct Point: Equatable {
        var x: Double
        var y: Double
    }

    /// A piece of coast inside a tile, and whether it starts and ends on the tile's edge (else the extract's coast
    /// stops inside the tile, and the sea there cannot be told from the land).
    struct Piece {
        var points: [Point]
        var startsOnEdge: Bool
        var endsOnEdge: Bool
    }

    let coastline: Coastline
    /// Coast segments (line, index of their first point) by the zoom-14 bucket their midpoint falls in.
    let buckets: [Int64: [(line: Int32, index: Int32)]]

    init(coastline: Coastline) {
        var buckets: [Int64: [(line: Int32, index: Int32)]] = [:]
        for line in 0..<coastline.lineCount {
            let range = coastline.points(ofLine: line)
            for index in range.dropLast() {
                let a = coastline.point(index)
                let b = coastline.point(index + 1)
                let mid = TileAddress.world((a.lat + b.lat) / 2, (a.lon + b.lon) / 2, z: RoadTiles.indexZoom)
                buckets[RoadTiles.bucket(Int(mid.x), Int(mid.y)), default: []].append((Int32(line), Int32(index)))
            }
        }
        self.coastline = coastline
        self.buckets = buckets
    }

    /// The coast's lines and the sea's rings in one tile, in tile units.
    func cut(_ address: TileAddress, extent: Int) -> (coast: [[Int]], sea: [[Int]]) {
        guard !coastline.isEmpty else { return ([], []) }
        let size = Double(extent)
        let near = RoadTiles.items(near: address, in: buckets)
        guard !near.isEmpty else {
            // Out at sea or inland: the nearest coast, however far, tells which.
            let around = segments(around: address)
            return (
                [],
                isSea(near: around, project: projector(address, size), size: size)
                    ? [square(extent)] : []
            )
        }
        let project = projector(address, size)
        var pieces: [Piece] = []
        var islands: [[Point]] = []
        for (line, run) in runs(of: near) {
            let points = run.map(project)
            // A closed line wholly inside the tile is an island (land inside, the coast going round it anticlockwise).
            let wholeLoop = coastline.isClosed(line) && run.count == coastline.points(ofLine: line).count
            if wholeLoop, let outside = points.firstIndex(where: { !Self.inside($0, size) }) {
                // A loop crossing the tile's edge is cut starting from outside, so no piece begins mid-coast.
                let rotated = outside == 0 ? points : Array(points[outside...] + points[1...outside])
                pieces += Self.clip(rotated, size: size)
            } else if wholeLoop {
                islands.append(points)
            } else {
                pieces += Self.clip(points, size: size)
            }
        }
        let coast = (pieces.map(\.points) + islands).compactMap { Self.encode($0) }
        let square = square(extent)
        if pieces.isEmpty && islands.isEmpty {
            // No coast crosses the tile: it is all sea or all land; the nearest coast segment's side tells which.
            return ([], isSea(near: near, project: project, size: size) ? [square] : [])
        }
        guard pieces.allSatisfy({ $0.startsOnEdge && $0.endsOnEdge }),
            let land = Self.landRings(pieces, size: size)
        else { return (coast, []) }
        return (coast, [square] + (land + islands).compactMap { Self.encode($0, closed: true) })
    }

    private func square(_ extent: Int) -> [Int] { [0, 0, 0, extent, extent, extent, extent, 0] }

    /// A coastline point in the tile's units.
    private func projector(_ address: TileAddress, _ size: Double) -> (Int) -> Point {
        { index in
            let point = coastline.point(index)
            let world = TileAddress.world(point.lat, point.lon, z: address.z)
            return Point(x: (world.x - Double(address.x)) * size, y: (world.y - Double(address.y)) * size)
        }
    }

    /// The coast segments nearest the tile's centre: squares of buckets growing until one holds some, then once more
    /// as wide, so the nearest is among them; none within about 100 km.
    private func segments(around address: TileAddress) -> [(line: Int32, index: Int32)] {
        let centre = TileAddress.world(
            TileAddress.latitude(y: Double(address.y) + 0.5, z: address.z),
            (Double(address.x) + 0.5) / Double(1 << address.z) * 360 - 180, z: RoadTiles.indexZoom)
        func within(_ radius: Int) -> [(line: Int32, index: Int32)] {
            var found: [(line: Int32, index: Int32)] = []
            for bx in (Int(centre.x) - radius)...(Int(centre.x) + radius) {
                for by in (Int(centre.y) - radius)...(Int(centre.y) + radius) {
                    found += buckets[RoadTiles.bucket(bx, by)] ?? []
                }
            }
            return found
        }
        for radius in [2, 4, 8, 16, 32] where !within(radius).isEmpty { return within(radius * 2) }
        return []
    }

    /// Consecutive segments as runs of point indexes; a closed line's runs across its start are joined.
    private func runs(of segments: [(line: Int32, index: Int32)]) -> [(line: Int, points: [Int])] {
        var runs: [(line: Int, points: [Int])] = []
        let byLine = Dictionary(grouping: segments, by: \.line)
        for (line, found) in byLine.sorted(by: { $0.key < $1.key }) {
            let range = coastline.points(ofLine: Int(line))
            var lineRuns: [[Int]] = []
            for index in found.map({ Int($0.index) }).sorted() {
                if let last = lineRuns.last?.last, last == index {
                    lineRuns[lineRuns.count - 1].append(index + 1)
                } else {
                    lineRuns.append([index, index + 1])
                }
            }
            if coastline.isClosed(Int(line)), lineRuns.count > 1, lineRuns[0].first == range.first,
                lineRuns[lineRuns.count - 1].last == range.last
            {
                lineRuns[lineRuns.count - 1] += lineRuns.removeFirst().dropFirst()
            }
            runs += lineRuns.map { (Int(line), $0) }
        }
        return runs
    }

    static func inside(_ point: Point, _ size: Double) -> Bool {
        let epsilon = 1e-6
        return point.x >= -epsilon && point.x <= size + epsilon && point.y >= -epsilon && point.y <= size + epsilon
    }

    /// Cuts a line to the tile square (Liang–Barsky per segment) into the pieces inside it.
    static func clip(_ points: [Point], size: Double) -> [Piece] {
        var pieces: [Piece] = []
        var current: Piece? = nil
        func finish() {
            guard var piece = current else { return }
            piece.endsOnEdge = onEdge(piece.points[piece.points.count - 1], size)
            if piece.points.count >= 2 { pieces.append(piece) }
            current = nil
        }
        for (a, b) in zip(points, points.dropFirst()) {
            guard let (t0, t1) = clipSegment(a, b, size: size) else {
                finish()
                continue
            }
            let start = Point(x: a.x + (b.x - a.x) * t0, y: a.y + (b.y - a.y) * t0)
            let end = Point(x: a.x + (b.x - a.x) * t1, y: a.y + (b.y - a.y) * t1)
            if current == nil { current = Piece(points: [start], startsOnEdge: onEdge(start, size), endsOnEdge: false) }
            current!.points.append(end)
            if t1 < 1 { finish() }
        }
        finish()
        return pieces
    }

    static func onEdge(_ point: Point, _ size: Double) -> Bool {
        let epsilon = 1e-6
        return inside(point, size)
            && (abs(point.x) < epsilon || abs(point.y) < epsilon || abs(point.x - size) < epsilon
                || abs(point.y - size) < epsilon)
    }

    static func clipSegment(_ a: Point, _ b: Point, size: Double) -> (Double, Double)? {
        var t0 = 0.0
        var t1 = 1.0
        let dx = b.x - a.x
        let dy = b.y - a.y
        for (p, q) in [(-dx, a.x), (dx, size - a.x), (-dy, a.y), (dy, size - a.y)] {
            if p == 0 {
                if q < 0 { return nil }
            } else {
                let r = q / p
                if p < 0 { t0 = max(t0, r) } else { t1 = min(t1, r) }
            }
        }
        return t0 < t1 ? (t0, t1) : nil
    }

    /// Where a point on the tile's edge lies going round it anticlockwise as seen on screen (left edge down, bottom
    /// edge right, right edge up, top edge left): the direction that keeps the tile on the left.
    static func perimeter(_ point: Point, _ size: Double) -> Double {
        let epsilon = 1e-6
        if abs(point.x) < epsilon { return point.y }
        if abs(point.y - size) < epsilon { return size + point.x }
        if abs(point.x - size) < epsilon { return 2 * size + (size - point.y) }
        return 3 * size + (size - point.x)
    }

    /// The land: each piece of coast, then along the tile's edge (land still on the left) to the next piece, until
    /// the ring closes. nil when the pieces do not pair up (a coast mapped the wrong way round).
    static func landRings(_ pieces: [Piece], size: Double) -> [[Point]]? {
        let around = 4 * size
        let entries = pieces.map { perimeter($0.points[0], size) }
        let exits = pieces.map { perimeter($0.points[$0.points.count - 1], size) }
        let corners = [
            (0.0, Point(x: 0, y: 0)), (size, Point(x: 0, y: size)), (2 * size, Point(x: size, y: size)),
            (3 * size, Point(x: size, y: 0)),
        ]
        var used = [Bool](repeating: false, count: pieces.count)
        var rings: [[Point]] = []
        for start in pieces.indices where !used[start] {
            var ring: [Point] = []
            var current = start
            for step in 0...pieces.count {
                guard step < pieces.count, !used[current] else { return nil }
                used[current] = true
                ring += pieces[current].points
                let exit = exits[current]
                let distance = { (entry: Double) in (entry - exit + around).truncatingRemainder(dividingBy: around) }
                let next = pieces.indices.min { distance(entries[$0]) < distance(entries[$1]) }!
                let gap = distance(entries[next])
                let passed = corners.map { ((($0.0 - exit) + around).truncatingRemainder(dividingBy: around), $0.1) }
                    .filter { $0.0 > 0 && $0.0 < gap }.sorted { $0.0 < $1.0 }
                ring += passed.map(\.1)
                if next == start { break }
                current = next
            }
            rings.append(ring)
        }
        return rings
    }

    /// All sea or all land, for a tile no coast crosses: the side of the nearest coast its centre is on. Where the
    /// nearest point is a corner of the coast, the two segments meeting there decide together.
    private func isSea(near: [(line: Int32, index: Int32)], project: (Int) -> Point, size: Double) -> Bool {
        let centre = Point(x: size / 2, y: size / 2)
        var nearest: [(distance: Double, point: Point, dx: Double, dy: Double)] = []
        for segment in near {
            let a = project(Int(segment.index))
            let b = project(Int(segment.index) + 1)
            let dx = b.x - a.x
            let dy = b.y - a.y
            let length = (dx * dx + dy * dy).squareRoot()
            guard length > 0 else { continue }
            let t = max(0, min(1, ((centre.x - a.x) * dx + (centre.y - a.y) * dy) / (length * length)))
            let point = Point(x: a.x + dx * t, y: a.y + dy * t)
            nearest.append((hypot(point.x - centre.x, point.y - centre.y), point, dx / length, dy / length))
        }
        guard let best = nearest.min(by: { $0.distance < $1.distance }) else { return false }
        let closest = nearest.filter { $0.distance - best.distance < 1e-6 }
        let dx = closest.reduce(0) { $0 + $1.dx }
        let dy = closest.reduce(0) { $0 + $1.dy }
        // On screen (y down), a positive cross product is the right of the direction of travel: the sea's side.
        return dx * (centre.y - best.point.y) - dy * (centre.x - best.point.x) > 0
    }

    /// Flat tile-unit coordinates, repeated points dropped; nil when nothing of the line is left.
    static func encode(_ points: [Point], closed: Bool = false) -> [Int]? {
        var flat: [Int] = []
        for point in points {
            let x = Int(point.x.rounded())
            let y = Int(point.y.rounded())
            if flat.count >= 2 && flat[flat.count - 2] == x && flat[flat.count - 1] == y { continue }
            flat += [x, y]
        }
        return flat.count >= (closed ? 6 : 4) ? flat : nil
    }
}
