import Foundation
import LogisticsCore
import RiderKit
import Testing

@testable import TestSupport

/// RiderKit's uploader against the real server: how many fixes leave the phone, and how often.
@Suite("RiderKit location uploads", .timeLimit(.minutes(3)))
struct LocationUploaderTests {
    static let start = Date()

    /// One fix a second for `seconds` seconds, moving north at `speed` m/s; flushes as the app's timer would.
    static func ride(
        _ uploader: LocationUploader, seconds: Int, speed: Double, from second: Int = 0
    ) async -> Int {
        var kept = 0
        for tick in second..<(second + seconds) {
            let at = start.addingTimeInterval(Double(tick) - 3600)
            let fix = LocationFix(
                lat: 43.73 + Double(tick) * speed / 111_320, lon: 7.42, accuracyM: 5, speedMps: speed, recordedAt: at)
            if await uploader.record(fix) { kept += 1 }
            await uploader.flushIfDue(now: at)
        }
        return kept
    }

    static func uploads(_ transport: FlakyTransport) -> Int {
        transport.requests.filter { $0 == "POST /api/v1/rider/locations" }.count
    }

    @Test(
        "moving on a task: a fix every 5 s in batches every 10 s; standing still: one sent every 20 s; off duty: nothing"
    )
    func adaptive() async throws {
        try await TestServer.run(.sqlite, mode: .live) { server in
            let riderId = UUID()
            let token = try await server.token(.rider, riderId)
            let transport = FlakyTransport()
            let uploader = LocationUploader(
                api: RiderAPI(baseURL: "http://127.0.0.1:\(server.port)", token: { token }, transport: transport))

            #expect(await Self.ride(uploader, seconds: 30, speed: 10) == 0, "off duty nothing is kept")
            #expect(Self.uploads(transport) == 0)

            await uploader.setDuty(.onTask)
            let moving = await Self.ride(uploader, seconds: 60, speed: 10, from: 100)
            #expect(moving == 12)
            // A batch goes when its oldest fix is 10 s old: three fixes a batch, four batches a minute.
            #expect(Self.uploads(transport) == 4)
            let afterMoving = Self.uploads(transport)

            let standing = await Self.ride(uploader, seconds: 120, speed: 0, from: 200)
            #expect((6...7).contains(standing), "\(standing) fixes kept standing still for 2 minutes")
            // Each goes at once: the server hears from a rider standing still well inside its 30-s heartbeat.
            #expect((6...8).contains(Self.uploads(transport) - afterMoving))

            await uploader.setDuty(.online)
            let waiting = await Self.ride(uploader, seconds: 120, speed: 10, from: 400)
            #expect((6...7).contains(waiting), "online without a task: dispatch gets a fix every 20 s")
            #expect(try await server.count("rider_locations", "rider_id = ?", [.text(riderId.lowercased)]) > 10)
        }
    }

    @Test("a phone that has said nothing for 20 s on duty is asked for a reading; off duty it is not")
    func freshFix() async throws {
        let uploader = LocationUploader(
            api: RiderAPI(baseURL: "http://127.0.0.1:9", token: { "" }, transport: FlakyTransport()))
        let at = Self.start
        #expect(await !uploader.needsFreshFix(now: at))
        await uploader.setDuty(.online)
        #expect(await uploader.needsFreshFix(now: at), "no fix yet")
        await uploader.record(LocationFix(lat: 43.73, lon: 7.42, accuracyM: 5, speedMps: 0, recordedAt: at))
        #expect(await !uploader.needsFreshFix(now: at.addingTimeInterval(19)))
        #expect(await uploader.needsFreshFix(now: at.addingTimeInterval(20)))
    }

    @Test("fixes that could not be sent go with the next batch once the network is back")
    func offline() async throws {
        try await TestServer.run(.sqlite, mode: .live) { server in
            let riderId = UUID()
            let token = try await server.token(.rider, riderId)
            let transport = FlakyTransport()
            let uploader = LocationUploader(
                api: RiderAPI(baseURL: "http://127.0.0.1:\(server.port)", token: { token }, transport: transport))
            await uploader.setDuty(.onTask)
            transport.offline = true
            _ = await Self.ride(uploader, seconds: 60, speed: 10)
            #expect(await uploader.pending.count == 12, "kept while offline")
            transport.offline = false
            #expect(await uploader.flush())
            #expect(await uploader.pending.isEmpty)
            #expect(try await server.count("rider_locations", "rider_id = ?", [.text(riderId.lowercased)]) == 12)
        }
    }
}
