import Foundation
import LogisticsCore
import LogisticsStore
import Testing

@testable import TestSupport

/// The group commit's write of many riders at once, which PostgreSQL takes as one array per column and SQLite as
/// `VALUES` lists: both must store the same rows and move the same positions.
@Suite("A group write of many riders' fixes", .timeLimit(.minutes(3)))
struct LocationWriteTests {
    @Test(
        "each fix is stored with its rider's delivery, empty fields stay empty, and no position moves back",
        arguments: StoreKind.available)
    func manyRiders(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (working, _, taskId) = try await scenario.assigned()
            let idle = try await scenario.onlineRider(name: "Idle Rider").id
            let behind = try await scenario.onlineRider(name: "Late Rider").id
            let locations = server.components.repository
            let now = server.clock.now()
            func fix(_ lat: Double, secondsAgo: Double, accuracy: Double? = 5) -> LocationFix {
                LocationFix(
                    lat: lat, lon: 7.4262, accuracyM: accuracy, speedMps: accuracy == nil ? nil : 6.6,
                    headingDeg: nil, recordedAt: now.addingTimeInterval(-secondsAgo))
            }
            try await locations.recordFixes([fix(43.7500, secondsAgo: 10)], riderId: behind, now: now)

            let working1 = fix(43.7301, secondsAgo: 3)
            let working2 = fix(43.7302, secondsAgo: 2, accuracy: nil)
            let idleFix = fix(43.7401, secondsAgo: 1)
            let stale = fix(43.7000, secondsAgo: 60)
            try await locations.storeFixes(
                [
                    RiderFixWrite(
                        riderId: working, kept: [working1, working2], newest: working2, newestShowable: working1),
                    RiderFixWrite(riderId: idle, kept: [idleFix], newest: idleFix, newestShowable: idleFix),
                    RiderFixWrite(riderId: behind, kept: [stale], newest: stale, newestShowable: stale),
                ], now: now)

            let trail = try await locations.orderTrail(orderId: UUID(uuidString: scenario.orderId)!, limit: 10)
            #expect(trail.map(\.lat) == [43.7301, 43.7302])
            #expect(trail.last?.accuracyM == nil && trail.last?.speedMps == nil && trail.first?.speedMps == 6.6)
            #expect(try await server.count("rider_locations", "task_id = ?", [.text(taskId.lowercased())]) == 2)
            #expect(try await server.count("rider_locations", "rider_id = ? AND task_id IS NULL", [.uuid(idle)]) == 1)

            #expect(try await locations.lastPosition(riderId: working)?.0.lat == 43.7302)
            #expect(try await locations.lastShowableFix(riderId: working)?.lat == 43.7301)
            #expect(try await locations.lastPosition(riderId: idle)?.0.lat == 43.7401)
            // The late fix is history, but the rider stays where the newer one put them.
            #expect(try await locations.lastPosition(riderId: behind)?.0.lat == 43.7500)
            #expect(try await server.count("rider_locations") == 5)

            // The same write again (a retry): nothing new.
            try await locations.storeFixes(
                [RiderFixWrite(riderId: idle, kept: [idleFix], newest: idleFix, newestShowable: idleFix)], now: now)
            #expect(try await server.count("rider_locations") == 5)

            // A fix the history thins out moves the rider without a row; a late one adds a row and moves nobody.
            let thinned = fix(43.7403, secondsAgo: 0.5)
            try await locations.storeFixes(
                [RiderFixWrite(riderId: idle, kept: [], newest: thinned, newestShowable: thinned)], now: now)
            #expect(try await server.count("rider_locations") == 5)
            #expect(try await locations.lastPosition(riderId: idle)?.0.lat == 43.7403)
            let late = fix(43.7399, secondsAgo: 30)
            try await locations.storeFixes(
                [RiderFixWrite(riderId: idle, kept: [late], newest: nil, newestShowable: nil)], now: now)
            #expect(try await server.count("rider_locations") == 6)
            #expect(try await locations.lastPosition(riderId: idle)?.0.lat == 43.7403)
        }
    }

    @Test(
        "two group writes at once that share riders, listed in opposite orders, both commit (no deadlock on PostgreSQL)"
    )
    func sharedRidersAtOnce() async throws {
        guard StoreKind.postgresURL != nil else {
            StoreKind.noteSkippedPostgres()
            return
        }
        try await TestServer.run(.postgres) { server in
            let scenario = try await DeliveryScenario.ready(server)
            // A fleet's worth of riders, so that PostgreSQL plans the position update as a fleet's is planned: each
            // rider looked up by its key in the order the write lists them (with 40 rows it hashes the table).
            try await server.database.query(
                "INSERT INTO riders (id, created_at, updated_at) SELECT md5(g::text), 0, 0 FROM generate_series(1, 20000) g",
                [])
            try await server.database.query("ANALYZE riders", [])
            var riders: [UUID] = []
            for index in 0..<40 { riders.append(try await scenario.onlineRider(name: "Rider \(index)").id) }
            let locations = server.components.repository
            let start = server.clock.now()
            // Each write moves every rider; the two lock the same rows, one from each end, unless the write orders
            // them. A deadlock fails one of the two transactions after PostgreSQL's deadlock_timeout.
            func write(_ riders: [UUID], round: Int, lat: Double, later: Double) -> [RiderFixWrite] {
                riders.map { rider in
                    let fix = LocationFix(
                        lat: lat, lon: 7.4262, accuracyM: 5, speedMps: 6, headingDeg: nil,
                        recordedAt: start.addingTimeInterval(Double(round) + later))
                    return RiderFixWrite(riderId: rider, kept: [fix], newest: fix, newestShowable: fix)
                }
            }
            for round in 0..<8 {
                async let listed: Void = locations.storeFixes(
                    write(riders, round: round, lat: 43.7301, later: 0), now: start)
                async let reversed: Void = locations.storeFixes(
                    write(riders.reversed(), round: round, lat: 43.7302, later: 0.5), now: start)
                _ = try await (listed, reversed)
            }
            #expect(try await server.count("rider_locations") == 2 * 8 * riders.count)
            #expect(try await server.count("riders", "last_lat = ?", [.double(43.7302)]) == riders.count)
        }
    }
}
