import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import Testing

@testable import LogisticsServer
@testable import TestSupport

@Suite("Retention of location fixes and photos", .timeLimit(.minutes(3)))
struct PersonalDataRetentionTests {
    static let day: TimeInterval = 24 * 3600

    @Test(
        "by default fixes go after 30 days, photos (row and file) after 90; the order's record of the proof stays",
        arguments: StoreKind.available)
    func defaults(kind: StoreKind) async throws {
        let blobs = FileManager.default.temporaryDirectory.appendingPathComponent("retention-\(UUID())")
        defer { try? FileManager.default.removeItem(at: blobs) }
        try await TestServer.run(kind, configure: { $0.blobDirectoryOverride = blobs.path }) { server in
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            let housekeeping = Housekeeping(
                repository: server.repository, blobs: server.components.blobs, clock: server.clock, logger: logger)
            let scenario = try await DeliveryScenario.ready(server)
            let (riderId, rider, taskId) = try await scenario.assigned()
            try await scenario.arrive(taskId, rider: rider)
            let form = Photos.multipart(photo: Photos.jpeg, fields: Photos.fields(server))
            let stored = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: form.body, contentType: form.contentType)
            #expect(stored.status == 201)
            let podId = try #require(stored["podId"] as? String)
            let earlier = try await server.count("rider_locations")
            try await Self.postFixes(server, riderId, lat: 43.7310)
            #expect(try await server.count("rider_locations") == earlier + 5)

            // 29 days on, a second batch; nothing has reached its limit yet.
            server.clock.advance(by: 29 * Self.day)
            try await Self.postFixes(server, riderId, lat: 43.7350)
            await housekeeping.pruneOnce()
            #expect(try await server.count("rider_locations") == earlier + 10)
            #expect(try await Self.image(server, podId) == 200)

            // 31 days: the first fixes have gone (with whatever the delivery itself stored), the photo stays.
            server.clock.advance(by: 2 * Self.day)
            await housekeeping.pruneOnce()
            #expect(try await server.count("rider_locations") == 5)
            #expect(try await Self.image(server, podId) == 200)
            #expect(try BlobFiles.count(in: blobs) == 1)

            // 91 days: the photo's row and file have gone, and the second fixes.
            server.clock.advance(by: 60 * Self.day)
            await housekeeping.pruneOnce()
            #expect(try await server.count("rider_locations") == 0)
            #expect(try await server.count("proofs_of_delivery") == 0)
            #expect(try BlobFiles.count(in: blobs) == 0)
            #expect(try await Self.image(server, podId) == 404)
            // The order still records that a photo was accepted, and the task that it was.
            let events = try await server.repository.events(orderId: UUID(uuidString: scenario.orderId)!)
            #expect(events.contains { $0.type == "ProofOfDeliveryAccepted" })
            #expect(try await server.count("tasks", "pod_accepted = 1") == 1)
        }
    }

    @Test("configured days are used; code proofs are never pruned", arguments: StoreKind.available)
    func configuredDays(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (riderId, rider, taskId) = try await scenario.assigned()
            try await scenario.arrive(taskId, rider: rider)
            let form = Photos.multipart(photo: Photos.png, fields: Photos.fields(server))
            let photo = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: form.body, contentType: form.contentType)
            #expect(photo.status == 201)
            try await Self.postFixes(server, riderId, lat: 43.7310)
            // A code proof from the same moment: the business record, whatever the photo limit.
            try await server.database.query(
                """
                INSERT INTO proofs_of_delivery (id, task_id, order_id, type, captured_at, lat, lon, accuracy_m,
                    created_by, created_at)
                VALUES (?, ?, ?, 'OTP', ?, 43.7347, 7.424, 5, ?, ?)
                """,
                [
                    .uuid(UUID()), .uuid(UUID(uuidString: taskId)!), .uuid(UUID(uuidString: scenario.orderId)!),
                    .date(server.clock.now()),
                    .uuid(riderId), .date(server.clock.now()),
                ])
            let policy = RetentionPolicy(locationFixesDays: 7, photosDays: 14)
            let week = try await server.repository.prune(
                policy, now: server.clock.now().addingTimeInterval(7 * Self.day - 60), batch: 2)
            #expect(week.locationFixes == 0 && week.photos == 0)
            let later = try await server.repository.prune(
                policy, now: server.clock.now().addingTimeInterval(7 * Self.day + 60), batch: 2)
            #expect(later.locationFixes >= 5 && later.photos == 0)
            let fortnight = try await server.repository.prune(
                policy, now: server.clock.now().addingTimeInterval(14 * Self.day + 60), batch: 2)
            #expect(fortnight.photos == 1 && fortnight.locationFixes == 0)
            #expect(try await server.count("proofs_of_delivery", "type = 'OTP'") == 1)
        }
    }

    @Test("LOGISTICS_RETAIN_FIXES_DAYS and LOGISTICS_RETAIN_PHOTOS_DAYS: defaults 30 and 90, 1 to 3650 days")
    func settings() throws {
        let defaults = try ServerConfiguration.fromEnvironment([:])
        #expect(defaults.retention.fixesDays == 30 && defaults.retention.photosDays == 90)
        let set = try ServerConfiguration.fromEnvironment([
            "LOGISTICS_RETAIN_FIXES_DAYS": "7", "LOGISTICS_RETAIN_PHOTOS_DAYS": "180",
        ])
        #expect(set.retention.fixesDays == 7 && set.retention.photosDays == 180)
        let policy = RetentionPolicy(locationFixesDays: 7, photosDays: 180)
        #expect(policy.locationFixes == 7 * Self.day && policy.photos == 180 * Self.day)
        for bad in ["0", "-1", "3651", "a week"] {
            #expect(throws: (any Error).self) {
                try ServerConfiguration.fromEnvironment(["LOGISTICS_RETAIN_FIXES_DAYS": bad])
            }
        }
    }

    /// Five fixes 30 m apart, so the history's thinning keeps them all.
    static func postFixes(_ server: TestServer, _ riderId: UUID, lat: Double) async throws {
        let token = try await server.token(.rider, riderId)
        let fixes = (0..<5).map {
            RiderFixes.fix(server, lat: lat + Double($0) * 0.0003, secondsAgo: Double(10 - $0))
        }
        let posted = try await server.send(.post, "/api/v1/rider/locations", token: token, json: ["fixes": fixes])
        #expect(posted.status == 202)
        #expect(posted["accepted"] as? Int == 5)
    }

    static func image(_ server: TestServer, _ podId: String) async throws -> Int {
        let dispatcher = try await server.token(.dispatcher)
        return try await server.send(.get, "/api/v1/pods/\(podId)/image", token: dispatcher).status
    }
}
