import Foundation
import LogisticsCore
import RoadFixtures
import RoadRouting

/// Travel matrices timed on a map and on the generated grid, checked against point-to-point searches.
enum MatrixTiming {
    /// `size`×`size` random routable positions, `runs` times (after one run that also works out edge lengths).
    static func measure(_ roadMap: RoadMap, label: String, size: Int, runs: Int, seed: UInt64) {
        let graph = roadMap.graph
        let nodes = graph.routableNodes
        var random = SeededGenerator(state: seed)
        let points = (0..<size).map { _ in graph.coordinate(nodes.randomElement(using: &random)!) }
        let planner = RoutePlanner(map: roadMap)
        let firstStart = DispatchTime.now().uptimeNanoseconds
        guard let table = try? planner.table(from: points, to: points) else {
            Console.line("  \(label): the matrix failed")
            return
        }
        let first = Double(DispatchTime.now().uptimeNanoseconds - firstStart) / 1e6
        var timings: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try? planner.table(from: points, to: points)
            timings.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        // A sample of cells against one route each: the matrix is only fast if it is also right.
        var checked = 0
        var wrong = 0
        for index in 0..<min(50, size) {
            let row = (index * 7) % size
            let column = (index * 13 + 1) % size
            guard let route = try? planner.route(RouteRequest(from: points[row], to: points[column]), now: Date())
            else {
                continue
            }
            checked += 1
            if abs((table.durationsS[row][column] ?? -1) - route.durationS) > 0.5 + route.durationS * 0.001 {
                wrong += 1
            }
        }
        let empty = table.durationsS.joined().count { $0 == nil }
        Console.line(
            "  \(label) \(size)×\(size): \(RoutingBench.summary(timings)) over \(runs) runs; first run (with edge lengths) "
                + String(format: "%.0f ms; ", first) + "\(empty) cells without a route; "
                + "\(checked - wrong) of \(checked) sampled cells equal the route planner's duration")
    }

    static func measureGrid(side: Int, size: Int, runs: Int) {
        Console.line("== travel matrix on the generated grid \(side)×\(side) (\(side * side) nodes)")
        let graph = GridRoadNetwork.generate(side: side)
        let contractStart = Date()
        var lastDecile = -1
        let hierarchy = ContractionHierarchy.build(graph: graph, metric: .time) { fraction in
            let decile = Int(fraction * 10)
            if decile != lastDecile {
                lastDecile = decile
                Console.line("  contracting \(decile * 10)%")
            }
        }
        Console.line(String(format: "  contraction %.1f s", Date().timeIntervalSince(contractStart)))
        measure(RoadMap(graph: graph, hierarchies: [.time: hierarchy]), label: "grid", size: size, runs: runs, seed: 3)
    }
}
