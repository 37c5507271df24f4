/// Douglas–Peucker on flat `[x0, y0, x1, y1, …]` tile lines: keeps the ends, and every point farther than the
/// tolerance from the line through the points kept around it.
enum LineSimplifier {
    static func simplify(_ line: [Int], tolerance: Double) -> [Int] {
        let count = line.count / 2
        guard count > 2 else { return line }
        var keep = [Bool](repeating: false, count: count)
        keep[0] = true
        keep[count - 1] = true
        // An explicit stack: a long coast would nest deeply.
        var spans = [(0, count - 1)]
        while let (first, last) = spans.popLast() {
            guard last > first + 1 else { continue }
            var farthest = first
            var distance = 0.0
            for index in (first + 1)..<last {
                let d = offset(line, index, from: first, to: last)
                if d > distance {
                    distance = d
                    farthest = index
                }
            }
            if distance > tolerance {
                keep[farthest] = true
                spans.append((first, farthest))
                spans.append((farthest, last))
            }
        }
        var simplified: [Int] = []
        simplified.reserveCapacity(line.count)
        for index in 0..<count where keep[index] { simplified += [line[2 * index], line[2 * index + 1]] }
        return simplified
    }

    /// How far point `index` lies from the segment between points `first` and `last`.
    static func offset(_ line: [Int], _ index: Int, from first: Int, to last: Int) -> Double {
        let (px, py) = (Double(line[2 * index]), Double(line[2 * index + 1]))
        let (ax, ay) = (Double(line[2 * first]), Double(line[2 * first + 1]))
        let (bx, by) = (Double(line[2 * last]), Double(line[2 * last + 1]))
        let dx = bx - ax
        let dy = by - ay
        let length = dx * dx + dy * dy
        guard length > 0 else { return ((px - ax) * (px - ax) + (py - ay) * (py - ay)).squareRoot() }
        let t = max(0, min(1, ((px - ax) * dx + (py - ay) * dy) / length))
        let (cx, cy) = (ax + t * dx - px, ay + t * dy - py)
        return (cx * cx + cy * cy).squareRoot()
    }
}
