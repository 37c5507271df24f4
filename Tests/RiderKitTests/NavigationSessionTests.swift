import Foundation
import LogisticsCore
import RiderKit
import Synchronization
import Testing

@testable import TestSupport

/// RiderKit's navigation session on real Monaco routes from the server, fed scripted GPS traces in simulated time.
@Suite("RiderKit navigation on Monaco", .timeLimit(.minutes(3)))
struct NavigationSessionTests {
    static let casino = GeoPoint(lat: 43.7396, lon: 7.4276)
    static let fontvieille = GeoPoint(lat: 43.7289, lon: 7.4170)
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func route(_ server: TestServer, from: GeoPoint, to: GeoPoint) async throws -> Route {
        let reply = try await server.send(
            .get, "/api/v1/routes?from=\(from.lat),\(from.lon)&to=\(to.lat),\(to.lon)",
            token: try await server.token(.dispatcher))
        #expect(reply.status == 200, "\(reply.text)")
        return try JSONDecoder().decode(Route.self, from: reply.body)
    }

    static func fix(_ point: GeoPoint, at second: Int, accuracy: Double = 5) -> LocationFix {
        LocationFix(
            lat: point.lat, lon: point.lon, accuracyM: accuracy, speedMps: 10,
            recordedAt: start.addingTimeInterval(Double(second)))
    }

    /// Whether `part` appears in `whole` in the same order (each element of `whole` used at most once).
    static func isSubsequence(_ part: [String], of whole: [String]) -> Bool {
        var remaining = whole[...]
        for item in part {
            guard let index = remaining.firstIndex(of: item) else { return false }
            remaining = remaining[(index + 1)...]
        }
        return true
    }

    static func announcements(_ route: Route) -> [String] {
        route.legs.flatMap(\.steps).flatMap { $0.voiceInstructions.map(\.announcement) }
    }

    static func spoken(_ events: [NavigationEvent]) -> [String] {
        events.compactMap { if case .announce(let text) = $0 { text } else { nil } }
    }

    /// A route that starts 50 m from its destination and loops 650 m round a block (one-way streets): its first
    /// metres pass 20 m from the door.
    static let loop: (route: Route, destination: GeoPoint) = {
        let points = [
            GeoPoint(lat: 43.7300, lon: 7.42000), GeoPoint(lat: 43.7300, lon: 7.42037),
            GeoPoint(lat: 43.7327, lon: 7.42037), GeoPoint(lat: 43.7327, lon: 7.42062),
            GeoPoint(lat: 43.7300, lon: 7.42062),
        ]
        let destination = points[4]
        func step(_ type: String, _ start: Int, _ end: Int, _ metres: Double, _ voice: [VoiceInstruction]) -> RouteStep
        {
            RouteStep(
                maneuver: Maneuver(type: type, modifier: nil, location: points[start], bearingAfter: 0, exit: nil),
                name: "Boulevard", distanceM: metres, durationS: metres / 8, instruction: type,
                voiceInstructions: voice, geometryStart: start, geometryEnd: end)
        }
        let steps = [
            step("depart", 0, 1, 30, [VoiceInstruction(distanceAlongStepM: 0, announcement: "Head east")]),
            step("turn", 1, 2, 300, [VoiceInstruction(distanceAlongStepM: 0, announcement: "Turn left")]),
            step("turn", 2, 3, 20, [VoiceInstruction(distanceAlongStepM: 0, announcement: "Turn right")]),
            step("turn", 3, 4, 300, [VoiceInstruction(distanceAlongStepM: 0, announcement: "Turn right")]),
            step("arrive", 4, 4, 0, [VoiceInstruction(distanceAlongStepM: 0, announcement: "You have arrived")]),
        ]
        let route = Route(
            distanceM: 650, durationS: 650 / 8, etaAt: "", geometry: Polyline.encode(points),
            legs: [RouteLeg(distanceM: 650, durationS: 650 / 8, steps: steps)], congestion: [], provider: "test",
            dataAgeS: nil, waypoints: [])
        return (route, destination)
    }()

    @Test("a route looping past the door arrives at its end, not where it first passes within 30 m of the door")
    func loopArrivesAtItsEnd() async throws {
        let session = NavigationSession(route: Self.loop.route, destination: Self.loop.destination) { _, _ in
            Issue.record("no re-route on the route itself")
            return Self.loop.route
        }
        let trace = try #require(Polyline.decode(Self.loop.route.geometry)).sampled(every: 10)
        var arrivedAt: Int?
        var lastRemaining = Double.infinity
        for (second, point) in trace.enumerated() {
            for event in await session.update(Self.fix(point, at: second)) {
                if case .arrived = event { arrivedAt = second }
                if case .progress(let progress) = event { lastRemaining = progress.remainingDistanceM }
            }
        }
        let arrival = try #require(arrivedAt, "never arrived")
        #expect(arrival >= trace.count - 4, "arrived at fix \(arrival) of \(trace.count), \(lastRemaining) m to go")
        #expect(lastRemaining <= 30)
    }

    @Test("following the route: every voice instruction once and in order, progress shrinks to the arrival")
    func followRoute() async throws {
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            let route = try await Self.route(server, from: Self.casino, to: Self.fontvieille)
            let session = NavigationSession(route: route, destination: Self.fontvieille) { _, _ in
                Issue.record("no re-route on the route itself")
                return route
            }
            let trace = try #require(Polyline.decode(route.geometry)).sampled(every: 10)
            var events: [NavigationEvent] = []
            for (second, point) in trace.enumerated() {
                events += await session.update(Self.fix(point, at: second))
            }
            let expected = Self.announcements(route)
            #expect(Self.spoken(events) == expected)
            #expect(expected.count >= 5)
            let progress = events.compactMap { if case .progress(let p) = $0 { p } else { nil } }
            #expect(
                progress.first.map { abs($0.remainingDistanceM - route.distanceM) < route.distanceM * 0.05 } == true)
            #expect(
                zip(progress, progress.dropFirst()).allSatisfy { $1.remainingDistanceM <= $0.remainingDistanceM + 1 })
            #expect(progress.allSatisfy { $0.offRouteM < 5 })
            #expect(progress.map(\.stepIndex) == progress.map(\.stepIndex).sorted(), "steps only move forward")
            #expect(progress.first?.eta == Self.start.addingTimeInterval(progress.first!.remainingDurationS))
            #expect(events.filter { $0 == .arrived }.count == 1)
            #expect(await session.reroutes == 0)
        }
    }

    @Test("a wrong turn triggers exactly one re-route within 5 s; a 30 s GPS gap shows searching, then resumes")
    func wrongTurnAndTunnel() async throws {
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            let route = try await Self.route(server, from: Self.casino, to: Self.fontvieille)
            let calls = Mutex<[GeoPoint]>([])
            let session = NavigationSession(route: route, destination: Self.fontvieille) { from, _ in
                calls.withLock { $0.append(from) }
                return try await Self.route(server, from: from, to: Self.fontvieille)
            }
            let line = try #require(Polyline.decode(route.geometry)).sampled(every: 10)
            var second = 0
            var events: [NavigationEvent] = []
            // A third of the way along the route...
            let turn = line.count / 3
            for point in line[..<turn] {
                events += await session.update(Self.fix(point, at: second))
                second += 1
            }
            // ...the rider goes straight off it, 10 m a second, at right angles to the road.
            let here = line[turn]
            let ahead = line[turn + 1]
            let (north, east) = (ahead.lat - here.lat, ahead.lon - here.lon)
            let norm = (north * north + east * east).squareRoot()
            var firstOffSecond: Int?
            var reroutedAt: Int?
            var newRoute: Route?
            for metres in stride(from: 10.0, through: 150, by: 10) {
                let point = GeoPoint(
                    lat: here.lat - east / norm * metres / 111_320,
                    lon: here.lon + north / norm * metres / (111_320 * cos(here.lat * .pi / 180)))
                let step = await session.update(Self.fix(point, at: second))
                events += step
                if firstOffSecond == nil, metres > 40 { firstOffSecond = second }
                for case .rerouted(let fresh) in step {
                    reroutedAt = second
                    newRoute = fresh
                }
                second += 1
                if newRoute != nil { break }
            }
            let fresh = try #require(newRoute, "the deviation was never noticed")
            #expect(calls.withLock { $0.count } == 1)
            #expect(try #require(reroutedAt) - firstOffSecond! <= 5, "re-routed within 5 s of leaving the route")
            #expect(events.contains(.offRoute))

            // The new route, with a tunnel half-way: 30 s without a fix.
            let newLine = try #require(Polyline.decode(fresh.geometry)).sampled(every: 10)
            let tunnelAt = newLine.count / 2
            var searchingAt: Int?
            var lastFixBeforeTunnel = 0
            for (index, point) in newLine.enumerated() {
                if index == tunnelAt {
                    lastFixBeforeTunnel = second - 1
                    for _ in 0..<30 {
                        second += 1
                        let tick = await session.checkSignal(now: Self.start.addingTimeInterval(Double(second)))
                        if tick.contains(.searchingForGPS) { searchingAt = second }
                        events += tick
                    }
                }
                guard index < tunnelAt || index >= tunnelAt + 3 else { continue }  // 30 m driven in the dark
                events += await session.update(Self.fix(point, at: second))
                second += 1
            }
            #expect(events.filter { $0 == .searchingForGPS }.count == 1)
            #expect(searchingAt == lastFixBeforeTunnel + 10, "searching 10 s after the last fix")
            #expect(events.filter { $0 == .gpsRestored }.count == 1)
            let restored = try #require(events.firstIndex(of: .gpsRestored))
            #expect(events[restored...].contains { if case .progress = $0 { true } else { false } })
            #expect(calls.withLock { $0.count } == 1, "the gap caused no second re-route")
            #expect(events.filter { $0 == .arrived }.count == 1)
            let spoken = Self.spoken(events)
            #expect(spoken.count >= 5)
            #expect(Self.isSubsequence(spoken, of: Self.announcements(route) + Self.announcements(fresh)))
        }
    }

    @Test("leaving navigation ignores fixes; resuming carries on without repeating announcements")
    func exitAndResume() async throws {
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            let route = try await Self.route(server, from: Self.casino, to: Self.fontvieille)
            let session = NavigationSession(route: route, destination: Self.fontvieille) { _, _ in route }
            let line = try #require(Polyline.decode(route.geometry)).sampled(every: 10)
            var events: [NavigationEvent] = []
            for (second, point) in line.enumerated() {
                if second == line.count / 4 { await session.exit() }
                if second == line.count / 2 { await session.resume() }
                let step = await session.update(Self.fix(point, at: second))
                if second >= line.count / 4 && second < line.count / 2 { #expect(step.isEmpty) }
                events += step
            }
            let spoken = Self.spoken(events)
            let all = Self.announcements(route)
            #expect(Self.isSubsequence(spoken, of: all), "in order, none twice")
            #expect(spoken.count < all.count, "what was due while away is not spoken late")
            #expect(events.filter { $0 == .arrived }.count == 1)
            #expect(await session.reroutes == 0)
        }
    }
}
