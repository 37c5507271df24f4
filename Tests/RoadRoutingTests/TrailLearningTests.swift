import Foundation
import LogisticsCore
import RoadFixtures
import RoadRouting
import Testing
import Threads

extension RoadRoutingSuites {
    @Suite("Traffic learned from trails matched to the roads")
    struct TrailLearningTests {
        @Test(
            "At 10 m of GPS noise, matched trails put speeds on the road and direction driven more often than nearest segments"
        )
        func matchedBeatsNearest() async throws {
            let monaco = await MonacoFixture.motorcycle
            let (matched, nearest, learnedFixes, fixes) = await OwnThread.run {
                let graph = monaco.graph
                let routes = MatchingCheck.routes(monaco, count: 25, seed: 11)
                var generator = SeededGenerator(state: 4)
                var right = (matched: 0, matchedTotal: 0, nearest: 0, nearestTotal: 0)
                var fixes = 0
                for route in routes {
                    let trace = MatchingCheck.drive(route, on: graph, noiseM: 10, generator: &generator)
                    fixes += trace.fixes.count
                    func isRight(_ arc: Int, _ index: Int) -> Bool {
                        let truth = trace.trueArcs[index]
                        let sameRoad =
                            graph.wayOSMId[Int(graph.arcWay[arc])] == graph.wayOSMId[Int(graph.arcWay[truth])]
                        let bearing = { (arc: Int) in
                            Bearing.degrees(
                                from: graph.coordinate(graph.sourceNode(ofArc: arc)),
                                to: graph.coordinate(graph.arcTarget[arc]))
                        }
                        return sameRoad && Bearing.difference(bearing(arc), bearing(truth)) < 90
                    }
                    // The server's way: a few fixes at a time, each batch matched with the last four before it and,
                    // to look ahead, the next two (learned in the next batch).
                    let hmm = RoadMap(graph: graph, hierarchies: monaco.hierarchies)
                    let trail = trace.fixes.map { TrafficFix(point: $0.point, speedMps: 8, recordedAt: $0.recordedAt) }
                    var start = 0
                    while start < trail.count {
                        let context = min(start, 4)
                        let end = min(trail.count, start + 5)
                        let window = Array(trail[(start - context)..<min(trail.count, end + 2)])
                        let learning = context..<(context + end - start)
                        for (offset, arc) in hmm.observe(trail: window, learning: learning).enumerated() {
                            guard let arc else { continue }
                            right.matchedTotal += 1
                            if isRight(arc, start + offset) { right.matched += 1 }
                        }
                        start = end
                    }
                    // The way before: each fix alone, on the nearest segment in its direction of travel.
                    let alone = RoadMap(graph: graph, hierarchies: monaco.hierarchies)
                    for (index, fix) in trace.fixes.enumerated() {
                        let truth = trace.trueArcs[index]
                        let heading = Bearing.degrees(
                            from: graph.coordinate(graph.sourceNode(ofArc: truth)),
                            to: graph.coordinate(graph.arcTarget[truth]))
                        guard
                            let arc = alone.observe(
                                position: fix.point, speedMps: 8, headingDeg: heading, recordedAt: fix.recordedAt)
                        else { continue }
                        right.nearestTotal += 1
                        if isRight(arc, index) { right.nearest += 1 }
                    }
                }
                return (
                    Double(right.matched) / Double(max(1, right.matchedTotal)),
                    Double(right.nearest) / Double(max(1, right.nearestTotal)), right.matchedTotal, fixes
                )
            }
            #expect(matched >= 0.9, "matched trails: \(matched)")
            #expect(matched > nearest, "matched \(matched) against nearest \(nearest)")
            // Most fixes teach something: only a stretch's first fix and fixes far from any road are skipped.
            #expect(Double(learnedFixes) > 0.8 * Double(fixes), "\(learnedFixes) of \(fixes)")
        }

        @Test("Context fixes steer the match but teach nothing twice; a parked rider teaches nothing")
        func contextAndParked() async throws {
            let monaco = await MonacoFixture.motorcycle
            let (first, again, parked, revision) = await OwnThread.run {
                let map = RoadMap(graph: monaco.graph, hierarchies: monaco.hierarchies)
                let route = MatchingCheck.routes(map, count: 1, seed: 3)[0]
                var generator = SeededGenerator(state: 1)
                let trace = MatchingCheck.drive(route, on: map.graph, noiseM: 3, generator: &generator)
                let trail = trace.fixes.prefix(10).map {
                    TrafficFix(point: $0.point, speedMps: 8, recordedAt: $0.recordedAt)
                }
                let first = map.observe(trail: Array(trail), learning: 0..<trail.count).compactMap { $0 }.count
                let again = map.observe(trail: Array(trail), learning: trail.count..<trail.count).compactMap { $0 }
                    .count
                let still = trail.map { TrafficFix(point: $0.point, speedMps: 0.3, recordedAt: $0.recordedAt) }
                let parked = map.observe(trail: still, learning: 0..<still.count).compactMap { $0 }.count
                return (first, again, parked, map.learned.revision)
            }
            #expect(first >= 8)
            #expect(again == 0)
            #expect(parked == 0)
            #expect(revision == first)
        }
    }
}
