import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

@Suite("Dispatching and delivery problems", .timeLimit(.minutes(3)))
struct DispatchTests {
    @Test(
        "nearest strategy offers to free online riders closest to the store; decline and expiry keep the audit trail",
        arguments: StoreKind.available)
    func nearestAndDecline(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let near = try await scenario.onlineRider()
            let far = try await scenario.onlineRider()
            let unplaced = try await scenario.onlineRider()
            let offline = try await server.token(.rider)
            _ = try await server.send(.get, "/api/v1/rider/me", token: offline)
            try await server.database.query(
                "UPDATE riders SET last_lat = ?, last_lon = ? WHERE id = ?",
                [.double(43.7400), .double(7.4280), .uuid(near.id)])
            try await server.database.query(
                "UPDATE riders SET last_lat = ?, last_lon = ? WHERE id = ?",
                [.double(43.7600), .double(7.4400), .uuid(far.id)])
            let made = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/offers", token: scenario.dispatcher,
                json: ["strategy": "nearest", "count": 2])
            #expect(made.status == 201)
            let riders = (made["offers"] as? [[String: Any]])?.compactMap { $0["riderId"] as? String }
            #expect(riders == [near.id.lowercased, far.id.lowercased])
            _ = unplaced

            let offerId = try #require((made["offers"] as? [[String: Any]])?.first?["offerId"] as? String)
            let declined = try await server.send(.post, "/api/v1/rider/offers/\(offerId)/decline", token: near.token)
            #expect(declined["status"] as? String == "DECLINED")
            let list = try await server.send(.get, "/api/v1/rider/offers", token: near.token)
            #expect((list["offers"] as? [Any])?.isEmpty == true)
            let again = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/offers", token: scenario.dispatcher,
                json: ["strategy": "nearest", "count": 1])
            let next = (again["offers"] as? [[String: Any]])?.compactMap { $0["riderId"] as? String }
            #expect(next == [far.id.lowercased])

            server.clock.advance(by: 61)
            let expiredList = try await server.send(.get, "/api/v1/rider/offers", token: far.token)
            #expect((expiredList["offers"] as? [Any])?.isEmpty == true)
            // The background sweeper may already have expired them; this pass catches the rest. On PostgreSQL a row
            // the sweeper holds is skipped here (SKIP LOCKED) and is closed when the sweeper commits.
            _ = try await server.components.repository.expireOffers(now: server.clock.now())
            #expect(
                try await server.count("offers", "order_id = ? AND status = 'DECLINED'", [.text(scenario.orderId)]) == 1
            )
            let closed = try await eventually(within: .seconds(5)) { () -> Int? in
                let count = try await server.count(
                    "offers", "order_id = ? AND status IN ('EXPIRED', 'SUPERSEDED')", [.text(scenario.orderId)])
                return count == 2 ? count : nil
            }
            #expect(closed == 2)

            let bad = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/offers", token: scenario.dispatcher,
                json: ["strategy": "random"])
            #expect(bad.code == "VALIDATION_FAILED")
            let unknown = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/offers", token: scenario.dispatcher,
                json: ["riderIds": [UUID().uuidString]])
            #expect(unknown.code == "NOT_FOUND")
        }
    }

    @Test(
        "the fleet for the dispatcher's map: availability, active task and last position, newest fixes first",
        arguments: StoreKind.available)
    func fleet(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let seenFirst = try await scenario.onlineRider(name: "Ana Costa")
            let seenLast = try await scenario.onlineRider(name: "Luca Rossi")
            let neverSeen = try await scenario.onlineRider(name: "Mia Weber")
            let now = server.clock.now()
            try await server.components.repository.recordFixes(
                [LocationFix(lat: 43.7400, lon: 7.4280, accuracyM: 5, recordedAt: now.addingTimeInterval(-30))],
                riderId: seenFirst.id, now: now)
            try await server.components.repository.recordFixes(
                [LocationFix(lat: 43.7350, lon: 7.4200, accuracyM: 5, recordedAt: now.addingTimeInterval(-5))],
                riderId: seenLast.id, now: now)
            let offers = try await scenario.offer(to: [seenFirst.id])
            _ = try await server.send(
                .post, "/api/v1/rider/offers/\(offers[seenFirst.id]!)/accept", token: seenFirst.token)

            let reply = try await server.send(.get, "/api/v1/riders", token: scenario.dispatcher)
            #expect(reply.status == 200)
            let riders = try #require(reply["riders"] as? [[String: Any]])
            #expect(
                riders.compactMap { $0["riderId"] as? String }
                    == [seenLast.id, seenFirst.id, neverSeen.id].map(\.lowercased))
            #expect(riders.compactMap { $0["availability"] as? String } == ["ONLINE", "ON_TASK", "ONLINE"])
            #expect(riders[1]["activeTaskId"] is String)
            let last = try #require(riders[0]["lastLocation"] as? [String: Any])
            #expect(last["lat"] as? Double == 43.7350)
            #expect(last["recordedAt"] is String)
            #expect(riders[2]["lastLocation"] == nil)

            let onTask = try await server.send(.get, "/api/v1/riders?availability=ON_TASK", token: scenario.dispatcher)
            #expect(
                (onTask["riders"] as? [[String: Any]])?.compactMap { $0["riderId"] as? String } == [
                    seenFirst.id.lowercased
                ])
            let one = try await server.send(.get, "/api/v1/riders?limit=1", token: scenario.dispatcher)
            #expect((one["riders"] as? [Any])?.count == 1)

            let badLimit = try await server.send(.get, "/api/v1/riders?limit=5001", token: scenario.dispatcher)
            #expect(badLimit.code == "VALIDATION_FAILED")
            let badAvailability = try await server.send(
                .get, "/api/v1/riders?availability=SLEEPING", token: scenario.dispatcher)
            #expect(badAvailability.code == "VALIDATION_FAILED")
            let asRider = try await server.send(.get, "/api/v1/riders", token: seenLast.token)
            #expect(asRider.status == 403)
            let asCustomer = try await server.send(.get, "/api/v1/riders", token: try await server.token(.customer))
            #expect(asCustomer.status == 403)
        }
    }

    @Test("offers need a ready order; nobody free is NO_RIDER_AVAILABLE", arguments: StoreKind.available)
    func offerPreconditions(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let dispatcher = try await server.token(.dispatcher)
            let created = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: Fixtures.order())
            let orderId = try #require(created["orderId"] as? String)
            let early = try await server.send(
                .post, "/api/v1/orders/\(orderId)/offers", token: dispatcher, json: ["strategy": "nearest"])
            #expect(early.code == "INVALID_STATUS_TRANSITION")
            _ = try await server.send(.post, "/api/v1/orders/\(orderId)/ready", token: dispatcher)
            let nobody = try await server.send(
                .post, "/api/v1/orders/\(orderId)/offers", token: dispatcher, json: ["strategy": "nearest"])
            #expect(nobody.status == 409)
            #expect(nobody.code == "NO_RIDER_AVAILABLE")
            #expect(try await server.count("offers") == 0)
        }
    }

    @Test("offers to an unknown rider are 404 and to a suspended one 409, not 400", arguments: StoreKind.available)
    func offerToUnknownOrSuspended(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let rider = try await scenario.onlineRider()
            // Schemathesis found this: a schema-valid body was refused as malformed.
            let unknown = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/offers", token: scenario.dispatcher,
                json: ["riderIds": [rider.id.lowercased, UUID().lowercased]])
            #expect(unknown.status == 404 && unknown.code == "NOT_FOUND", "\(unknown.text)")
            let admin = try await server.token(.admin)
            _ = try await server.send(.post, "/api/v1/riders/\(rider.id.lowercased)/suspend", token: admin)
            let suspended = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/offers", token: scenario.dispatcher,
                json: ["riderIds": [rider.id.lowercased]])
            #expect(suspended.status == 409 && suspended.code == "CONFLICT", "\(suspended.text)")
            #expect(try await server.count("offers") == 0)
        }
    }

    @Test(
        "issues notify customer and dispatcher; FAILED waits the configured time or a dispatcher's approval",
        arguments: StoreKind.available)
    func issuesAndFailure(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            try await scenario.arrive(taskId, rider: rider)
            let tooEarly = try await scenario.status(
                taskId, "FAILED", rider: rider, extra: ["reason": "CUSTOMER_UNAVAILABLE"])
            #expect(tooEarly.code == "INVALID_STATUS_TRANSITION")

            let issue = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/issues", token: rider,
                json: [
                    "type": "CUSTOMER_UNAVAILABLE", "note": "rang twice", "location": ["lat": 43.7347, "lon": 7.424],
                ])
            #expect(issue.status == 201)
            // No app device, but a phone that takes texts: the customer hears by SMS.
            #expect(issue["notified"] as? [String] == ["DISPATCHER", "CUSTOMER"])
            let device = try await server.send(
                .put, "/api/v1/me/devices/pixel-8", token: scenario.customer,
                json: ["platform": "android", "pushToken": "customer-push-token"])
            #expect(device.status == 200)
            let again = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/issues", token: rider, json: ["type": "CUSTOMER_UNAVAILABLE"])
            #expect(again["notified"] as? [String] == ["DISPATCHER", "CUSTOMER"])
            // The dispatcher reads what the rider wrote: the note is kept with the issue, not in the event log.
            let reported = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/issues", token: scenario.dispatcher)
            let issues = reported["issues"] as? [[String: Any]] ?? []
            // Both were reported at the same (test clock) time: their order between them is not defined.
            #expect(issues.count == 2 && issues.compactMap { $0["note"] as? String } == ["rang twice"])
            #expect(issues.allSatisfy { $0["type"] as? String == "CUSTOMER_UNAVAILABLE" })
            #expect(
                try await server.send(.get, "/api/v1/orders/\(scenario.orderId)/issues", token: rider).status == 403)
            let pushes = try await server.repository.outbox(orderId: UUID(uuidString: scenario.orderId)!).filter {
                $0.topic == "push"
            }
            #expect(
                pushes.contains {
                    $0.body == "Your rider is at your address and can't reach you"
                        && $0.recipientId == scenario.customerId
                })
            #expect(
                pushes.contains {
                    $0.recipientRole == .dispatcher && $0.title == "Delivery issue: CUSTOMER_UNAVAILABLE"
                })

            server.clock.advance(by: 300)
            let waiting = try await scenario.status(
                taskId, "FAILED", rider: rider, extra: ["reason": "CUSTOMER_UNAVAILABLE"])
            #expect(waiting.code == "INVALID_STATUS_TRANSITION")
            #expect((waiting["waitSeconds"] as? Int ?? 0) > 200)
            let noReason = try await scenario.status(taskId, "FAILED", rider: rider)
            #expect(noReason.code == "VALIDATION_FAILED")
            server.clock.advance(by: 301)
            let failed = try await scenario.status(
                taskId, "FAILED", rider: rider, extra: ["reason": "CUSTOMER_UNAVAILABLE"])
            #expect(failed.status == 200)
            #expect(failed["status"] as? String == "FAILED")
            #expect(
                try await server.send(.get, "/api/v1/rider/me", token: rider)["availability"] as? String == "ONLINE")

            // With a dispatcher's approval there is no waiting.
            let second = try await DeliveryScenario.ready(server)
            let (_, rider2, task2) = try await second.assigned()
            try await second.arrive(task2, rider: rider2)
            _ = try await server.send(
                .post, "/api/v1/rider/tasks/\(task2)/issues", token: rider2, json: ["type": "ADDRESS_NOT_FOUND"])
            let approved = try await server.send(
                .post, "/api/v1/orders/\(second.orderId)/failure-approval", token: second.dispatcher,
                json: ["reason": "address does not exist"])
            #expect(approved.status == 200)
            let failedNow = try await second.status(
                task2, "FAILED", rider: rider2, extra: ["reason": "ADDRESS_NOT_FOUND"])
            #expect(failedNow.status == 200)
            let badType = try await server.send(
                .post, "/api/v1/rider/tasks/\(task2)/issues", token: rider2, json: ["type": "FLAT_TYRE"])
            #expect(badType.code == "VALIDATION_FAILED")
        }
    }
}
