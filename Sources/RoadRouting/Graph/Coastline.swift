import LogisticsCore

/// Where land meets the sea, from the extract's `natural=coastline` ways joined end to end. OpenStreetMap draws the
/// coastline with the land on its left; the map tiles rely on that to fill the sea. Routing never reads it.
public struct Coastline: Sendable, Equatable {
    /// Line `i` is points `lineStart[i] ..< lineStart[i + 1]`.
    public var lineStart: [UInt32] = [0]
    public var latE7: [Int32] = []
    public var lonE7: [Int32] = []

    public init() {}

    public var lineCount: Int { lineStart.count - 1 }
    public var isEmpty: Bool { latE7.isEmpty }

    public func points(ofLine line: Int) -> Range<Int> { Int(lineStart[line])..<Int(lineStart[line + 1]) }

    public func point(_ index: Int) -> GeoPoint {
        GeoPoint(lat: Double(latE7[index]) / 1e7, lon: Double(lonE7[index]) / 1e7)
    }

    /// A closed line (an island, or a whole coast) ends where it starts.
    public func isClosed(_ line: Int) -> Bool {
        let range = points(ofLine: line)
        return range.count > 3 && latE7[range.first!] == latE7[range.last!] && lonE7[range.first!] == lonE7[range.last!]
    }

    mutating func append(line: [(latE7: Int32, lonE7: Int32)]) {
        guard line.count >= 2 else { return }
        for point in line {
            latE7.append(point.latE7)
            lonE7.append(point.lonE7)
        }
        lineStart.append(UInt32(latE7.count))
    }

    var isConsistent: Bool {
        lineStart.first == 0 && lineStart.last.map(Int.init) == latE7.count && latE7.count == lonE7.count
            && zip(lineStart, lineStart.dropFirst()).allSatisfy { $0 <= $1 }
    }

    /// Joins ways that continue one another (one's last node is the next one's first), as mappers split long
    /// coasts into many ways.
    static func join(_ ways: [[Int64]]) -> [[Int64]] {
        var startingAt: [Int64: Int] = [:]
        for (index, way) in ways.enumerated() where startingAt[way[0]] == nil { startingAt[way[0]] = index }
        var used = [Bool](repeating: false, count: ways.count)
        var lines: [[Int64]] = []
        func chain(from start: Int) {
            var line = ways[start]
            used[start] = true
            while let next = startingAt[line[line.count - 1]], !used[next] {
                line += ways[next].dropFirst()
                used[next] = true
            }
            lines.append(line)
        }
        // Open coasts from their first way; what is left are closed loops, started anywhere.
        let ends = Set(ways.map { $0[$0.count - 1] })
        for index in ways.indices where !used[index] && !ends.contains(ways[index][0]) { chain(from: index) }
        for index in ways.indices where !used[index] { chain(from: index) }
        return lines
    }
}
