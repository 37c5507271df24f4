import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

@Suite("Delivery refusals: the right code, and nothing changes", .timeLimit(.minutes(3)))
struct DeliveryErrorTests {
    @Test(
        "acceptance errors: OFFER_EXPIRED, ORDER_ALREADY_ASSIGNED, ORDER_CANCELLED, RIDER_NOT_ONLINE, RIDER_HAS_ACTIVE_TASK, FORBIDDEN",
        arguments: StoreKind.available)
    func acceptanceErrors(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            // Expired, by moving the injected clock past the 60 s window.
            let expiring = try await DeliveryScenario.ready(server)
            let late = try await expiring.onlineRider()
            let lateOffer = try await expiring.offer(to: [late.id])[late.id]!
            server.clock.advance(by: 61)
            var before = try await expiring.snapshot()
            let expired = try await server.send(.post, "/api/v1/rider/offers/\(lateOffer)/accept", token: late.token)
            #expect(expired.status == 410)
            #expect(expired.code == "OFFER_EXPIRED")
            #expect(try await expiring.snapshot() == before)
            #expect(
                try await server.send(.get, "/api/v1/rider/me", token: late.token)["availability"] as? String
                    == "ONLINE")

            // Someone else's offer.
            let scenario = try await DeliveryScenario.ready(server)
            let first = try await scenario.onlineRider()
            let second = try await scenario.onlineRider()
            let offers = try await scenario.offer(to: [first.id, second.id])
            before = try await scenario.snapshot()
            let stolen = try await server.send(
                .post, "/api/v1/rider/offers/\(offers[first.id]!)/accept", token: second.token)
            #expect(stolen.status == 403)
            #expect(stolen.code == "FORBIDDEN")
            #expect(try await scenario.snapshot() == before)

            // Offline rider.
            _ = try await server.send(
                .put, "/api/v1/rider/availability", token: second.token, json: ["status": "OFFLINE"])
            let offline = try await server.send(
                .post, "/api/v1/rider/offers/\(offers[second.id]!)/accept", token: second.token)
            #expect(offline.status == 403)
            #expect(offline.code == "RIDER_NOT_ONLINE")
            #expect(try await scenario.snapshot() == before)

            // The first rider wins; the second, back online, finds the order taken.
            #expect(
                try await server.send(.post, "/api/v1/rider/offers/\(offers[first.id]!)/accept", token: first.token)
                    .status == 200)
            _ = try await server.send(
                .put, "/api/v1/rider/availability", token: second.token, json: ["status": "ONLINE"])
            before = try await scenario.snapshot()
            let taken = try await server.send(
                .post, "/api/v1/rider/offers/\(offers[second.id]!)/accept", token: second.token)
            #expect(taken.status == 409)
            #expect(taken.code == "ORDER_ALREADY_ASSIGNED")
            #expect(try await scenario.snapshot() == before)

            // A rider on a task cannot take another, nor go offline.
            let other = try await DeliveryScenario.ready(server)
            let busyOffer = try await other.offer(to: [first.id])[first.id]!
            let otherBefore = try await other.snapshot()
            let busy = try await server.send(.post, "/api/v1/rider/offers/\(busyOffer)/accept", token: first.token)
            #expect(busy.status == 409)
            #expect(busy.code == "RIDER_HAS_ACTIVE_TASK")
            #expect(try await other.snapshot() == otherBefore)
            let goOffline = try await server.send(
                .put, "/api/v1/rider/availability", token: first.token, json: ["status": "OFFLINE"])
            #expect(goOffline.code == "RIDER_HAS_ACTIVE_TASK")

            // A cancelled order.
            let cancelled = try await DeliveryScenario.ready(server)
            let rider = try await cancelled.onlineRider()
            let offerId = try await cancelled.offer(to: [rider.id])[rider.id]!
            _ = try await server.send(
                .post, "/api/v1/orders/\(cancelled.orderId)/cancel", token: cancelled.dispatcher, json: [:])
            before = try await cancelled.snapshot()
            let refused = try await server.send(.post, "/api/v1/rider/offers/\(offerId)/accept", token: rider.token)
            #expect(refused.status == 409)
            #expect(refused.code == "ORDER_CANCELLED")
            #expect(try await cancelled.snapshot() == before)
            #expect(
                try await server.send(.post, "/api/v1/rider/offers/\(UUID())/accept", token: rider.token).code
                    == "NOT_FOUND")
        }
    }

    @Test(
        "status errors: INVALID_STATUS_TRANSITION, FORBIDDEN, GEOFENCE_CONFIRMATION_REQUIRED, POD_REQUIRED, bad occurredAt",
        arguments: StoreKind.available)
    func statusErrors(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            var before = try await scenario.snapshot()

            let skipped = try await scenario.status(taskId, "ARRIVED_AT_DESTINATION", rider: rider)
            #expect(skipped.status == 409)
            #expect(skipped.code == "INVALID_STATUS_TRANSITION")
            #expect(skipped["currentStatus"] as? String == "ACCEPTED")
            #expect(skipped["allowedNext"] as? [String] == ["ARRIVED_AT_STORE"])

            let intruder = try await server.token(.rider)
            let foreign = try await scenario.status(taskId, "ARRIVED_AT_STORE", rider: intruder)
            #expect(foreign.status == 403)
            #expect(foreign.code == "FORBIDDEN")

            let future = try await scenario.status(
                taskId, "ARRIVED_AT_STORE", rider: rider, occurredAt: server.clock.now().addingTimeInterval(180))
            #expect(future.code == "VALIDATION_FAILED")
            let past = try await scenario.status(
                taskId, "ARRIVED_AT_STORE", rider: rider, occurredAt: server.clock.now().addingTimeInterval(-3600))
            #expect(past.code == "VALIDATION_FAILED")
            let badLocation = try await scenario.status(taskId, "ARRIVED_AT_STORE", rider: rider, lat: 123)
            #expect(badLocation.code == "VALIDATION_FAILED")
            #expect(try await scenario.snapshot() == before)

            #expect(try await scenario.status(taskId, "ARRIVED_AT_STORE", rider: rider).status == 200)
            #expect(try await scenario.status(taskId, "PICKED_UP", rider: rider).status == 200)

            // 1.1 km from the customer: confirmation needed, then recorded with the override.
            before = try await scenario.snapshot()
            let far = try await scenario.status(taskId, "ARRIVED_AT_DESTINATION", rider: rider, lat: 43.7446)
            #expect(far.status == 422)
            #expect(far.code == "GEOFENCE_CONFIRMATION_REQUIRED")
            let distance = try #require(far["distanceM"] as? Double)
            #expect(distance > 1000 && distance < 1200)
            #expect(try await scenario.snapshot() == before)
            let confirmed = try await scenario.status(
                taskId, "ARRIVED_AT_DESTINATION", rider: rider, lat: 43.7446,
                extra: ["farFromDestinationConfirmed": true])
            #expect(confirmed.status == 200)
            let event = try #require(
                try await server.repository.events(orderId: UUID(uuidString: scenario.orderId)!).last)
            #expect(event.geofenceOverride)
            #expect(abs((event.geofenceDistanceM ?? 0) - distance) < 1)

            before = try await scenario.snapshot()
            let noProof = try await scenario.status(taskId, "DELIVERED", rider: rider)
            #expect(noProof.status == 409)
            #expect(noProof.code == "POD_REQUIRED")
            #expect(try await scenario.snapshot() == before)
        }
    }

    @Test(
        "offline replay keeps the tap times; replaying again writes nothing; a reused eventId is 422",
        arguments: StoreKind.available)
    func offlineReplay(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            let acceptedAt = server.clock.now()
            // The rider tapped three times while offline; the phone sends them ten minutes later.
            let taps: [(String, Date, UUID)] = [
                ("ARRIVED_AT_STORE", acceptedAt.addingTimeInterval(120), UUID()),
                ("PICKED_UP", acceptedAt.addingTimeInterval(300), UUID()),
                ("ARRIVED_AT_DESTINATION", acceptedAt.addingTimeInterval(540), UUID()),
            ]
            server.clock.advance(by: 600)
            for (status, time, id) in taps {
                #expect(
                    try await scenario.status(taskId, status, rider: rider, occurredAt: time, eventId: id).status == 200
                )
            }
            let stored = try await server.repository.events(orderId: UUID(uuidString: scenario.orderId)!)
                .filter { $0.type == "DeliveryStatusUpdated" }
            #expect(stored.map(\.occurredAt.epochMillis) == taps.map(\.1.epochMillis))
            #expect(stored.allSatisfy { $0.receivedAt.epochMillis == server.clock.now().epochMillis })
            #expect(stored.map(\.id) == taps.map(\.2))

            let before = try await scenario.snapshot()
            for (status, time, id) in taps {
                let replay = try await scenario.status(taskId, status, rider: rider, occurredAt: time, eventId: id)
                #expect(replay.status == 200)
                #expect(replay["status"] as? String == "ARRIVED_AT_DESTINATION")
            }
            #expect(try await scenario.snapshot() == before)
            let reused = try await scenario.status(taskId, "DELIVERED", rider: rider, eventId: taps[0].2)
            #expect(reused.status == 422)
            #expect(try await scenario.snapshot() == before)
        }
    }

    @Test(
        "OTP: INVALID_OTP counts down, the fifth is OTP_LOCKED, then a photo is evidence and only an override completes",
        arguments: StoreKind.available)
    func otpLockout(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server, podType: "OTP")
            let (_, rider, taskId) = try await scenario.assigned()
            let early = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, json: Self.otpBody("0000", server))
            #expect(early.code == "INVALID_STATUS_TRANSITION")
            try await scenario.arrive(taskId, rider: rider)
            let customerView = try await server.send(
                .get, "/api/v1/customer/orders/\(scenario.orderId)", token: scenario.customer)
            let code = try #require(customerView["deliveryOtp"] as? String)
            let wrong = String(format: "%04d", (Int(code)! + 1) % 10_000)

            let malformed = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, json: Self.otpBody("12a4", server))
            #expect(malformed.code == "VALIDATION_FAILED")
            for remaining in [4, 3, 2, 1] {
                let reply = try await server.send(
                    .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, json: Self.otpBody(wrong, server))
                #expect(reply.status == 400)
                #expect(reply.code == "INVALID_OTP")
                #expect(reply["attemptsRemaining"] as? Int == remaining)
            }
            let fifth = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, json: Self.otpBody(wrong, server))
            #expect(fifth.status == 423)
            #expect(fifth.code == "OTP_LOCKED")
            let right = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, json: Self.otpBody(code, server))
            #expect(right.code == "OTP_LOCKED")
            #expect(try await scenario.status(taskId, "DELIVERED", rider: rider).code == "POD_REQUIRED")

            // Any JPEG-looking bytes are no proof once the code is locked: the photo is kept for a dispatcher, with
            // its distance from the door, and only the dispatcher's override completes the delivery.
            let photo = Photos.multipart(photo: Photos.jpeg, fields: Photos.fields(server))
            let evidence = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: photo.body,
                contentType: photo.contentType)
            #expect(evidence.status == 201)
            #expect(evidence["awaitingOverride"] as? Bool == true)
            let refused = try await scenario.status(taskId, "DELIVERED", rider: rider)
            #expect(refused.code == "POD_REQUIRED")
            #expect(refused.text.contains("dispatcher must confirm"))
            let task = try await server.send(.get, "/api/v1/rider/tasks/active", token: rider)
            let proof = try #require(task["proofOfDelivery"] as? [String: Any])
            #expect(proof["awaitingOverride"] as? Bool == true)
            #expect(proof["accepted"] as? Bool == false)
            let log = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/events", token: scenario.dispatcher)
            let events = try #require(log["events"] as? [[String: Any]])
            let kept = try #require(events.first { $0["type"] as? String == "ProofOfDeliveryAwaitingOverride" })
            let details = try #require(kept["details"] as? [String: Any])
            #expect(details["distanceM"] != nil && details["withinGeofence"] != nil, "\(details)")
            #expect(!events.contains { $0["type"] as? String == "ProofOfDeliveryAccepted" })

            let override = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/pod-override", token: scenario.dispatcher,
                json: ["reason": "photo of the parcel at the door checked"])
            #expect(override.status == 200)
            #expect(try await scenario.status(taskId, "DELIVERED", rider: rider).status == 200)
        }
    }

    @Test("a PHOTO order refuses a code, and a dispatcher override lets it complete", arguments: StoreKind.available)
    func podTypeMismatchAndOverride(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            try await scenario.arrive(taskId, rider: rider)
            let code = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, json: Self.otpBody("1234", server))
            #expect(code.code == "VALIDATION_FAILED")
            let noReason = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/pod-override", token: scenario.dispatcher, json: [:])
            #expect(noReason.code == "VALIDATION_FAILED")
            let byRider = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/pod-override", token: rider, json: ["reason": "x"])
            #expect(byRider.status == 403 || byRider.status == 404)
            let override = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/pod-override", token: scenario.dispatcher,
                json: ["reason": "customer confirmed by phone"])
            #expect(override.status == 200)
            #expect(try await scenario.status(taskId, "DELIVERED", rider: rider).status == 200)
            let types = try await server.repository.events(orderId: UUID(uuidString: scenario.orderId)!).map(\.type)
            #expect(types.contains("ProofOfDeliveryOverridden"))
        }
    }

    @Test(
        "photos: a text file named photo.jpg is 415, 11 MiB is 413, missing GPS is 400", arguments: StoreKind.available)
    func photoRefusals(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            try await scenario.arrive(taskId, rider: rider)
            let before = try await scenario.snapshot()
            let fake = Photos.multipart(photo: Array("definitely not a photo\n".utf8), fields: Photos.fields(server))
            let text = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: fake.body, contentType: fake.contentType)
            #expect(text.status == 415)
            #expect(text.code == "UNSUPPORTED_MEDIA_TYPE")

            var big = Photos.jpeg
            big += [UInt8](repeating: 0x42, count: 11 * 1024 * 1024)
            let huge = Photos.multipart(photo: big, fields: Photos.fields(server))
            let tooLarge = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: huge.body, contentType: huge.contentType)
            #expect(tooLarge.status == 413)
            #expect(tooLarge.code == "PAYLOAD_TOO_LARGE")

            var fields = Photos.fields(server)
            fields.removeValue(forKey: "lat")
            fields["accuracyM"] = "-3"
            let noGPS = Photos.multipart(photo: Photos.png, fields: fields)
            let missing = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: noGPS.body,
                contentType: noGPS.contentType)
            #expect(missing.status == 400)
            let fieldNames = (missing["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
            #expect(fieldNames == ["lat"])

            let plain = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: Data(Photos.png),
                contentType: "image/png")
            #expect(plain.code == "UNSUPPORTED_MEDIA_TYPE")
            #expect(try await scenario.snapshot() == before)
            #expect(try await server.count("proofs_of_delivery") == 0)
        }
    }

    static func otpBody(_ value: String, _ server: TestServer) -> [String: Any] {
        [
            "type": "OTP", "value": value, "capturedAt": RFC3339.string(from: server.clock.now()),
            "location": ["lat": 43.7347, "lon": 7.4240, "accuracyM": 4],
        ]
    }
}
