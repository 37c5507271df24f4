import Foundation
import LogisticsCore
import RoadRouting
import Testing
import Threads

extension RoadRoutingSuites {
    @Suite("Speeds learned per quarter hour of the week")
    struct LearnedSpeedsTests {
        /// Casino to Fontvieille, as in the live traffic tests.
        static let from = GeoPoint(lat: 43.7396, lon: 7.4276)
        static let to = GeoPoint(lat: 43.7310, lon: 7.4170)
        /// Monday 30 November 2026, 08:05 UTC.
        static let mondayMorning = Date(timeIntervalSince1970: 1_796_025_900)
        static let utc = TimeZone(identifier: "UTC")!

        @Test("Past their cap, learned tallies keep the best sampled; live speeds past their expiry are forgotten")
        func bounded() async throws {
            let monaco = await MonacoFixture.motorcycle
            let map = RoadMap(graph: monaco.graph, hierarchies: monaco.hierarchies)
            // Three weeks of one sample per arc and quarter hour on 200 arcs: 200 × 2,016 slots' worth of keys.
            for arc in 0..<200 {
                for quarter in stride(from: 0, to: 3 * 7 * 96, by: 7) {
                    map.learned.record(
                        arc: arc, metresPerSecond: 8, at: Self.mondayMorning.addingTimeInterval(Double(quarter) * 900))
                }
            }
            // And one well-known segment in one slot.
            for _ in 0..<50 { map.learned.record(arc: 7, metresPerSecond: 3, at: Self.mondayMorning) }
            let before = map.learned.tallies
            #expect(before > 10_000)
            let removed = map.learned.cap(10_000)
            #expect(map.learned.tallies == 9_000 && removed == before - 9_000)
            #expect(map.learned.metresPerSecond(arc: 7, slot: map.learned.slot(of: Self.mondayMorning))! < 4)
            #expect(map.learned.cap(10_000) == 0, "under the cap nothing goes")

            for arc in 0..<100 {
                map.traffic.record(arc: arc, metresPerSecond: 5, observedAt: Self.mondayMorning)
            }
            #expect(map.traffic.trackedArcs == 100)
            #expect(map.traffic.freshSpeeds(now: Self.mondayMorning.addingTimeInterval(60)).count == 100)
            #expect(map.traffic.freshSpeeds(now: Self.mondayMorning.addingTimeInterval(601)).isEmpty)
            #expect(map.traffic.trackedArcs == 0)
        }

        @Test("Slots count quarter hours from Monday 00:00 in the city's time zone")
        func slots() {
            #expect(WeekSlot(Self.mondayMorning, timeZone: Self.utc).label == "Mon 08:00")
            #expect(WeekSlot(Self.mondayMorning, timeZone: Self.utc).index == 32)
            #expect(WeekSlot(Self.mondayMorning.addingTimeInterval(-60 * 6), timeZone: Self.utc).index == 31)
            // Sunday 23:59 is the last slot; a minute later the week starts again.
            let sundayNight = Self.mondayMorning.addingTimeInterval(-(8 * 3600 + 6 * 60))
            #expect(WeekSlot(sundayNight, timeZone: Self.utc).index == WeekSlot.count - 1)
            #expect(WeekSlot(sundayNight.addingTimeInterval(60), timeZone: Self.utc).index == 0)
            // Monaco is an hour ahead of UTC in winter: 08:05 UTC is 09:05 there.
            let monaco = TimeZone(identifier: "Europe/Monaco")!
            #expect(WeekSlot(Self.mondayMorning, timeZone: monaco).label == "Mon 09:00")
            #expect(WeekSlot(Self.mondayMorning.addingTimeInterval(7 * 86_400), timeZone: monaco).index == 36)
        }

        @Test("The ETA: live beats learned beats the profile, and learned speeds hold only in their slot")
        func etaPrecedence() async throws {
            let monaco = await MonacoFixture.motorcycle
            let durations = try await OwnThread.run {
                let map = RoadMap(graph: monaco.graph, hierarchies: monaco.hierarchies)
                let planner = RoutePlanner(map: map)
                let request = RouteRequest(from: Self.from, to: Self.to)
                let free = try planner.route(request, now: Self.mondayMorning)
                // A week ago at this time, riders crawled along the whole route at 4 m/s: slow, but the trip still
                // ends in the same quarter hour (later pieces would be timed by the next one's speeds).
                let lastWeek = Self.mondayMorning.addingTimeInterval(-7 * 86_400)
                try Self.drive(free, on: map, speedMps: 4, at: lastWeek, passes: 3)
                let learned = try planner.route(request, now: Self.mondayMorning)
                let otherSlot = try planner.route(request, now: Self.mondayMorning.addingTimeInterval(3 * 3600))
                // Leaving at 08:13, the rider is into the 08:15 quarter hour, unknown, before the end.
                let crossing = try planner.route(request, now: Self.mondayMorning.addingTimeInterval(8 * 60))
                // Now riders are on it at 10 m/s: live speeds win over what was learned.
                try Self.drive(free, on: map, speedMps: 10, at: Self.mondayMorning, passes: 1)
                let live = try planner.route(request, now: Self.mondayMorning)
                return (
                    free.durationS, learned.durationS, otherSlot.durationS, live.durationS, free.distanceM,
                    crossing.durationS
                )
            }
            let (free, learned, otherSlot, live, distance, crossing) = durations
            #expect(crossing > free + 10 && crossing < learned - 10, "\(free) < \(crossing) < \(learned)")
            // 4 m/s over the route's length, give or take the few metres too short to drive a fix along.
            #expect(abs(learned - distance / 4) < distance / 4 * 0.1, "learned \(learned) s for \(distance) m")
            #expect(otherSlot == free)
            #expect(abs(live - distance / 10) < distance / 10 * 0.2, "live \(live) s for \(distance) m")
        }

        @Test("A departure in a slow quarter hour is routed round the slow streets; another quarter hour is not")
        func departureRouteChoice() async throws {
            let monaco = await MonacoFixture.motorcycle
            let (free, slowSlot, otherSlot, method) = try await OwnThread.run {
                let map = RoadMap(graph: monaco.graph, hierarchies: monaco.hierarchies)
                let customiser = try #require(TrafficCustomiser(map: map))
                let planner = RoutePlanner(map: map)
                let free = try planner.route(RouteRequest(from: Self.from, to: Self.to), now: Self.mondayMorning)
                let lastWeek = Self.mondayMorning.addingTimeInterval(-7 * 86_400)
                try Self.drive(free, on: map, speedMps: 1.5, at: lastWeek, passes: 3, middleHalf: true)
                let now = Self.mondayMorning.addingTimeInterval(-2 * 3600)
                func departing(_ date: Date) throws -> Route {
                    try planner.route(
                        RouteRequest(from: Self.from, to: Self.to, departAt: date), now: now,
                        snapshot: customiser.departureSnapshot(at: date, now: now))
                }
                return (
                    free, try departing(Self.mondayMorning), try departing(Self.mondayMorning.addingTimeInterval(3600)),
                    customiser.method
                )
            }
            #expect(method == .triangles)
            #expect(slowSlot.geometry != free.geometry)
            #expect(slowSlot.distanceM > free.distanceM)
            #expect(slowSlot.durationS > free.durationS)
            #expect(slowSlot.etaAt == RFC3339.string(from: Self.mondayMorning.addingTimeInterval(slowSlot.durationS)))
            #expect(otherSlot.geometry == free.geometry)
            #expect(otherSlot.durationS == free.durationS)
        }

        @Test("The background customisation folds in learned speeds for the current slot, live ones on top")
        func customisedWeights() async throws {
            let monaco = await MonacoFixture.motorcycle
            let checks = try await OwnThread.run {
                let map = RoadMap(graph: monaco.graph, hierarchies: monaco.hierarchies)
                let customiser = try #require(TrafficCustomiser(map: map))
                let planner = RoutePlanner(map: map)
                let free = try planner.route(RouteRequest(from: Self.from, to: Self.to), now: Self.mondayMorning)
                let lastWeek = Self.mondayMorning.addingTimeInterval(-7 * 86_400)
                let arcs = try Self.drive(free, on: map, speedMps: 1.5, at: lastWeek, passes: 3, middleHalf: true)
                let arc = try #require(arcs.first)
                let metres = Double(map.graph.arcDistanceM[arc])
                let learnedWeight = customiser.weights(now: Self.mondayMorning).weights[arc]
                let elsewhen = customiser.weights(now: Self.mondayMorning.addingTimeInterval(3600)).weights[arc]
                let snapshot = try #require(customiser.customiseIfChanged(now: Self.mondayMorning))
                let detour = try planner.route(RouteRequest(from: Self.from, to: Self.to), now: Self.mondayMorning)
                // The next quarter hour needs a new customisation even though no speed arrived.
                let nextSlot = customiser.customiseIfChanged(now: Self.mondayMorning.addingTimeInterval(900))
                map.traffic.record(arc: arc, metresPerSecond: 12, observedAt: Self.mondayMorning)
                let liveWeight = customiser.weights(now: Self.mondayMorning).weights[arc]
                return (
                    learned: learnedWeight == RoadGraph.timeWeight(seconds: metres / 1.5),
                    elsewhen: elsewhen == map.weights[.time]![arc],
                    live: liveWeight == RoadGraph.timeWeight(seconds: metres / 12),
                    liveArcs: snapshot.liveArcs, moved: detour.geometry != free.geometry,
                    nextSlot: nextSlot != nil
                )
            }
            #expect(checks.learned)
            #expect(checks.elsewhen)
            #expect(checks.live)
            #expect(checks.liveArcs == 0)
            #expect(checks.moved)
            #expect(checks.nextSlot)
        }

        @Test("A segment with too few samples borrows its road class's share of free flow in that slot")
        func classFallback() async throws {
            let monaco = await MonacoFixture.motorcycle
            let (borrowed, ownThin, classWide) = await OwnThread.run {
                let map = RoadMap(graph: monaco.graph, hierarchies: monaco.hierarchies)
                let graph = map.graph
                let slot = map.learned.slot(of: Self.mondayMorning)
                func freeFlow(_ arc: Int) -> Double {
                    Double(graph.arcDistanceM[arc]) / Double(graph.arcDurationS[arc])
                }
                func roadClass(_ arc: Int) -> UInt8 { graph.wayClass[Int(graph.arcWay[arc])] }
                let classes = Dictionary(grouping: 0..<graph.arcCount, by: roadClass)
                let arcs = classes.values.max { $0.count < $1.count }!
                // One sample each on 30 arcs of the commonest class, all at 60 % of their free flow.
                for arc in arcs.prefix(30) {
                    map.learned.record(arc: arc, metresPerSecond: freeFlow(arc) * 0.6, at: Self.mondayMorning)
                }
                let unseen = arcs[40]
                let thin = arcs[0]
                let otherClass = classes.first { $0.key != roadClass(unseen) }!.value[0]
                return (
                    map.learned.metresPerSecond(arc: unseen, slot: slot).map { $0 / freeFlow(unseen) },
                    map.learned.metresPerSecond(arc: thin, slot: slot).map { $0 / freeFlow(thin) },
                    map.learned.metresPerSecond(arc: otherClass, slot: slot)
                )
            }
            #expect(abs((borrowed ?? 0) - 0.6) < 1e-6)
            #expect(abs((ownThin ?? 0) - 0.6) < 1e-6)
            #expect(classWide == nil)
        }

        @Test("Samples go to storage by OSM nodes and come back on another map of the same roads")
        func storedAndMerged() async throws {
            let monaco = await MonacoFixture.motorcycle
            let (pending, secondTake, restored, speeds, skipped) = try await OwnThread.run {
                let first = RoadMap(graph: monaco.graph, hierarchies: monaco.hierarchies)
                let route = try RoutePlanner(map: first).route(
                    RouteRequest(from: Self.from, to: Self.to), now: Self.mondayMorning)
                let arcs = try Self.drive(route, on: first, speedMps: 3, at: Self.mondayMorning, passes: 3)
                let pending = first.learned.takePending()
                let secondTake = first.learned.takePending().count
                first.learned.restorePending(Array(pending.prefix(2)))
                let restored = first.learned.takePending().count
                // Another instance: the stored totals plus a segment it does not have.
                let second = RoadMap(graph: monaco.graph, hierarchies: monaco.hierarchies)
                let alien = LearnedSpeeds.Entry(
                    fromOSMNode: -1, toOSMNode: -2, slot: WeekSlot(index: 0),
                    tally: LearnedSpeeds.Tally(paceSum: 1, samples: 1))
                let skipped = second.learned.merge(stored: pending + [alien])
                let slot = second.learned.slot(of: Self.mondayMorning)
                let speeds = arcs.map { second.learned.metresPerSecond(arc: $0, slot: slot) }
                return (pending, secondTake, restored, speeds, skipped)
            }
            #expect(!pending.isEmpty)
            #expect(pending.allSatisfy { $0.slot.label == "Mon 08:00" && $0.tally.samples >= 1 })
            #expect(secondTake == 0)
            #expect(restored == 2)
            #expect(skipped == 1)
            #expect(speeds.allSatisfy { abs(($0 ?? 0) - 3) < 1e-9 }, "\(speeds)")
        }

        /// Rider fixes along a route, `passes` times, a fifth of a second apart; returns the arcs they were matched
        /// to. Three fixes per segment of the geometry, so each arc gets samples from every pass.
        @discardableResult
        static func drive(
            _ route: Route, on map: RoadMap, speedMps: Double, at start: Date, passes: Int, middleHalf: Bool = false
        ) throws -> [Int] {
            let all = try #require(Polyline.decode(route.geometry))
            let points = middleHalf ? Array(all[(all.count / 4)..<(3 * all.count / 4)]) : all
            var arcs: [Int] = []
            var time = start
            for pass in 0..<passes {
                for (a, b) in zip(points, points.dropFirst()) where a.distanceM(to: b) > 5 {
                    for fraction in [0.25, 0.5, 0.75] {
                        time.addTimeInterval(0.2)
                        let arc = map.observe(
                            position: a.interpolated(to: b, fraction), speedMps: speedMps,
                            headingDeg: Bearing.degrees(from: a, to: b), recordedAt: time)
                        if pass == 0, fraction == 0.5, let arc { arcs.append(arc) }
                    }
                }
            }
            return arcs
        }
    }
}

extension GeoPoint {
    fileprivate func interpolated(to other: GeoPoint, _ fraction: Double) -> GeoPoint {
        GeoPoint(lat: lat + (other.lat - lat) * fraction, lon: lon + (other.lon - lon) * fraction)
    }
}
