import Foundation
import LogisticsCore
import RoadFixtures
import RoadRouting
import Testing
import Threads

extension RoadRoutingSuites {
    /// The HMM map matcher on Monaco: traces driven along known routes, with GPS noise added, must land on the
    /// segments actually driven; broken traces are matched where they can be and never fail as a whole.
    @Suite("Map matching")
    struct MapMatcherTests {
        @Test("noisy traces of 30 known routes: ≥ 95 % of the segments driven matched at 10 m noise, ≥ 98 % at 5 m")
        func accuracyByNoise() async throws {
            let map = await MonacoFixture.motorcycle
            let scores = await OwnThread.run {
                let routes = MatchingCheck.routes(map, count: 30, seed: 41)
                return [5.0, 10, 20].map { MatchingCheck.accuracy(noiseM: $0, map: map, routes: routes, seed: 7) }
            }
            for (noise, score) in zip([5, 10, 20], scores) {
                print(
                    "map matching at \(noise) m noise: \(String(format: "%.1f", score.segmentShare * 100)) % of segments, "
                        + "mismatch \(String(format: "%.3f", score.mismatchFraction)), "
                        + "\(String(format: "%.1f", score.fixOnRoadShare * 100)) % of \(score.fixes) fixes on the road")
            }
            #expect(scores[0].segmentShare >= 0.98, "5 m: \(scores[0].segmentShare)")
            #expect(scores[1].segmentShare >= 0.95, "10 m: \(scores[1].segmentShare)")
            #expect(scores[2].segmentShare >= 0.90, "20 m: \(scores[2].segmentShare)")
            #expect(scores[1].fixOnRoadShare >= 0.90, "10 m: \(scores[1].fixOnRoadShare)")
        }

        @Test("a stretch's path is connected: each arc starts where the one before ends")
        func connectedPath() async throws {
            let map = await MonacoFixture.motorcycle
            let graph = map.graph
            let route = MatchingCheck.routes(map, count: 1, seed: 5)[0]
            var generator = SeededGenerator(state: 3)
            let trace = MatchingCheck.drive(route, on: graph, noiseM: 10, generator: &generator)
            let match = MapMatcher(map: map).match(trace.fixes)
            #expect(match.stretches.count == 1)
            let stretch = try #require(match.stretches.first)
            #expect(stretch.fixes == Array(trace.fixes.indices))
            for (a, b) in zip(stretch.arcs, stretch.arcs.dropFirst()) where a != b {
                #expect(graph.arcTarget[a] == graph.sourceNode(ofArc: b), "\(a) → \(b)")
            }
            #expect(stretch.coordinates.count >= stretch.fixes.count)
        }

        @Test("jumps, repeated and out-of-order timestamps, fixes at sea: matched where possible, the rest reported")
        func brokenTraces() async throws {
            let map = await MonacoFixture.motorcycle
            let graph = map.graph
            let matcher = MapMatcher(map: map)
            let route = MatchingCheck.routes(map, count: 1, seed: 9)[0]
            var generator = SeededGenerator(state: 4)
            let clean = MatchingCheck.drive(route, on: graph, noiseM: 5, generator: &generator).fixes
            #expect(clean.count > 10)

            // Shuffled order and a repeated fix: the same matches as the clean trace, per fix.
            let cleanMatch = matcher.match(clean)
            var shuffled = Array(clean.enumerated())
            shuffled.shuffle(using: &generator)
            shuffled.append(shuffled[0])
            let shuffledMatch = matcher.match(shuffled.map(\.element))
            for (position, entry) in shuffled.enumerated().dropLast() {
                #expect(shuffledMatch.points[position]?.arc == cleanMatch.points[entry.offset]?.arc)
            }
            #expect(shuffledMatch.points.last??.arc == cleanMatch.points[shuffled[0].offset]?.arc)

            // A fix at sea, and a jump of 3 km for two fixes: those unmatched or a stretch of their own, the rest
            // matched as before.
            var broken = clean
            broken[3].point = GeoPoint(lat: 43.70, lon: 7.46, accuracyM: 10)
            // A road 1.5 km or more from where the rider was: reachable, but not in 3 s.
            let farNode = try #require(
                graph.routableNodes.first { graph.coordinate($0).distanceM(to: clean[6].point) > 1_500 })
            var far = graph.coordinate(farNode)
            far.accuracyM = 5
            broken[6].point = far
            broken[7].point = far
            let brokenMatch = matcher.match(broken)
            #expect(brokenMatch.points[3] == nil)
            #expect(brokenMatch.stretches.count >= 2)
            let kept = broken.indices.filter { ![3, 6, 7].contains($0) }
            let agree = kept.filter { brokenMatch.points[$0]?.arc == cleanMatch.points[$0]?.arc }.count
            #expect(Double(agree) >= Double(kept.count) * 0.9, "\(agree) of \(kept.count)")

            // Nothing but bad fixes: nothing matched, no stretch, no failure.
            let nowhere = MapMatcher.Fix(point: GeoPoint(lat: 0, lon: 0), recordedAt: Date())
            let empty = matcher.match([nowhere, nowhere])
            #expect(empty.points == [nil, nil] && empty.stretches.isEmpty)
            #expect(matcher.match([]).points.isEmpty)
        }
    }
}
