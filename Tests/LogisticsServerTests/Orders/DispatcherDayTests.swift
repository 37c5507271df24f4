import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

/// What the dispatcher's page reads: every offer of an order and what became of it, and the last hour's events of
/// every order, by reference.
@Suite("The dispatcher's day", .timeLimit(.minutes(2)))
struct DispatcherDayTests {
    @Test("an order's offers: declined, expired, then accepted, with the riders' names", arguments: StoreKind.available)
    func offerOutcomes(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let asha = try await scenario.onlineRider(name: "Asha Rao")
            let omar = try await scenario.onlineRider(name: "Omar Haddad")
            let first = try await scenario.offer(to: [asha.id, omar.id])
            #expect(
                try await server.send(.post, "/api/v1/rider/offers/\(first[asha.id]!)/decline", token: asha.token)
                    .status == 200)
            // Omar lets his lapse: past the offer's time it is EXPIRED at once, before any sweep marks it.
            server.clock.advance(by: 61)
            var listed = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/offers", token: scenario.dispatcher)
            var offers = try #require(listed["offers"] as? [[String: Any]])
            let outcome = Dictionary(
                uniqueKeysWithValues: offers.map { ($0["riderName"] as? String ?? "?", $0["status"] as? String ?? "?") }
            )
            #expect(outcome == ["Asha Rao": "DECLINED", "Omar Haddad": "EXPIRED"])
            #expect(offers.allSatisfy { $0["closedAt"] != nil })

            // Offered again: Omar takes it this time.
            let second = try await scenario.offer(to: [omar.id])
            #expect(
                try await server.send(.post, "/api/v1/rider/offers/\(second[omar.id]!)/accept", token: omar.token)
                    .status == 200)
            listed = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/offers", token: scenario.dispatcher)
            offers = try #require(listed["offers"] as? [[String: Any]])
            // An offer that lapsed before the new round stays EXPIRED, not SUPERSEDED by it.
            #expect(Set(offers.prefix(2).map { $0["status"] as? String }) == ["DECLINED", "EXPIRED"])
            #expect(offers.last?["status"] as? String == "ACCEPTED")
            #expect(
                try await server.send(.get, "/api/v1/orders/\(scenario.orderId)/offers", token: asha.token).status
                    == 403)
        }
    }

    @Test("the feed after a reload: the last hour's events of every order with its reference; at most a day back")
    func recentEvents() async throws {
        try await TestServer.run(.sqlite) { server in
            let dispatcher = try await server.token(.dispatcher)
            var order = Fixtures.order()
            order["externalRef"] = "FEED-1"
            let created = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: order)
            let orderId = try #require(created["orderId"] as? String)
            #expect(try await server.send(.post, "/api/v1/orders/\(orderId)/ready", token: dispatcher).status == 200)
            server.clock.advance(by: 1800)
            let feed = try await server.send(.get, "/api/v1/events", token: dispatcher)
            let events = try #require(feed["events"] as? [[String: Any]])
            #expect(events.map { $0["type"] as? String } == ["OrderCreated", "OrderReadyForPickup"])
            #expect(
                events.allSatisfy { $0["externalRef"] as? String == "FEED-1" && $0["orderId"] as? String == orderId })

            server.clock.advance(by: 3600)
            let later = try await server.token(.dispatcher)
            #expect((try await server.send(.get, "/api/v1/events", token: later)["events"] as? [Any])?.isEmpty == true)
            let since = RFC3339.string(from: server.clock.now().addingTimeInterval(-7200))
            #expect(
                (try await server.send(.get, "/api/v1/events?since=\(since)", token: later)["events"] as? [Any])?
                    .count == 2)
            // Further back than a day reads from a day back: the two events are within it, then not.
            let tooOld = RFC3339.string(from: server.clock.now().addingTimeInterval(-90_000))
            #expect(
                (try await server.send(.get, "/api/v1/events?since=\(tooOld)", token: later)["events"] as? [Any])?
                    .count == 2)
            server.clock.advance(by: 86_400)
            let nextDay = try await server.token(.dispatcher)
            #expect(
                (try await server.send(.get, "/api/v1/events?since=\(tooOld)", token: nextDay)["events"] as? [Any])?
                    .isEmpty == true)
            #expect(
                ValidationTests.fields(try await server.send(.get, "/api/v1/events?from=x", token: nextDay)) == ["from"]
            )
        }
    }

    @Test(
        "reassigned before pickup: the rider is freed and told, the order offered to another; after pickup refused",
        arguments: StoreKind.available)
    func reassign(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (firstId, first, taskId) = try await scenario.assigned()
            #expect(
                try await scenario.status(taskId, "ARRIVED_AT_STORE", rider: first, lat: 43.7396, lon: 7.4276).status
                    == 200)
            let other = try await scenario.onlineRider(name: "Omar Haddad")
            let missing = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/reassign", token: scenario.dispatcher, json: [:])
            #expect(ValidationTests.fields(missing) == ["reason"])
            let reply = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/reassign", token: scenario.dispatcher,
                json: ["reason": "rider's scooter broke down", "riderIds": [other.id.uuidString.lowercased()]])
            #expect(reply.status == 200, "\(reply.text)")
            let order = try #require(reply["order"] as? [String: Any])
            #expect(order["status"] as? String == "READY_FOR_PICKUP")
            #expect(order["assignedRiderId"] == nil || order["assignedRiderId"] is NSNull)
            #expect(
                (reply["offers"] as? [[String: Any]])?.compactMap { $0["riderId"] as? String } == [
                    other.id.uuidString.lowercased()
                ])

            let me = try await server.send(.get, "/api/v1/rider/me", token: first)
            #expect(me["availability"] as? String == "ONLINE")
            #expect(try await server.send(.get, "/api/v1/rider/tasks/active", token: first).status == 404)
            // The released rider's late tap is refused, not recorded.
            #expect(try await scenario.status(taskId, "PICKED_UP", rider: first).code == "ORDER_CANCELLED")
            let log = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/events", token: scenario.dispatcher)
            let moved = try #require(
                (log["events"] as? [[String: Any]])?.first { $0["type"] as? String == "OrderReassigned" })
            let details = try #require(moved["details"] as? [String: Any])
            #expect(details["reason"] as? String == "rider's scooter broke down")
            #expect(details["fromRiderId"] as? String == firstId.uuidString.lowercased())
            let told = try await server.count(
                "outbox", "recipient_id = ? AND text_key = 'rider.orderReassigned'", [.uuid(firstId)])
            #expect(told == 1)

            // Omar takes it and picks it up: from then on only a return to the store takes it away.
            let offers = try await server.send(.get, "/api/v1/rider/offers", token: other.token)
            let offerId = try #require((offers["offers"] as? [[String: Any]])?.first?["offerId"] as? String)
            let accepted = try await server.send(.post, "/api/v1/rider/offers/\(offerId)/accept", token: other.token)
            let secondTask = try #require(accepted["taskId"] as? String)
            for status in ["ARRIVED_AT_STORE", "PICKED_UP"] {
                #expect(
                    try await scenario.status(secondTask, status, rider: other.token, lat: 43.7396, lon: 7.4276).status
                        == 200)
            }
            let late = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/reassign", token: scenario.dispatcher,
                json: ["reason": "too late"])
            #expect(late.status == 409)
            #expect(late.code == "INVALID_STATUS_TRANSITION")
            #expect(late.text.contains("return-to-store"))
        }
    }

    @Test(
        "a picked-up parcel sent back: the rider's next stop is the store, RETURNED_TO_STORE ends the order RETURNED",
        arguments: StoreKind.available)
    func returnToStore(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (riderId, rider, taskId) = try await scenario.assigned()
            let path = "/api/v1/orders/\(scenario.orderId)/return-to-store"
            let early = try await server.send(.post, path, token: scenario.dispatcher, json: ["reason": "too early"])
            #expect(early.code == "INVALID_STATUS_TRANSITION")
            #expect(early.text.contains("reassign"))
            for status in ["ARRIVED_AT_STORE", "PICKED_UP"] {
                #expect(
                    try await scenario.status(taskId, status, rider: rider, lat: 43.7396, lon: 7.4276).status == 200)
            }
            let missing = try await server.send(.post, path, token: scenario.dispatcher, json: [:])
            #expect(ValidationTests.fields(missing) == ["reason"])
            let byRider = try await server.send(.post, path, token: rider, json: ["reason": "I am tired"])
            #expect(byRider.status == 403)

            let link = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/tracking-links", token: scenario.customer)
            let linkToken = try #require(link["token"] as? String)
            let back = try await server.send(
                .post, path, token: scenario.dispatcher, json: ["reason": "the customer moved away"])
            #expect(back.status == 200, "\(back.text)")
            #expect(back["status"] as? String == "RETURNING_TO_STORE")
            #expect(back["allowedNext"] as? [String] == ["RETURNED_TO_STORE"])
            let active = try await server.send(.get, "/api/v1/rider/tasks/active", token: rider)
            #expect((active["nextStop"] as? [String: Any])?["kind"] as? String == "STORE")
            let order = try await server.send(.get, "/api/v1/orders/\(scenario.orderId)", token: scenario.dispatcher)
            #expect(order["status"] as? String == "RETURNING_TO_STORE")
            // The customer's page stops following the rider and says the order is going back, from which store.
            let page = try await server.send(.get, "/track/\(linkToken)")
            #expect(page.status == 200)
            #expect(page.text.contains("Going back to the store") && page.text.contains("Café de Paris"))
            #expect(!page.text.contains("/web/Tracking/track.js"), "no live map for a parcel going back")
            let snapshot = try await server.send(.get, "/track/\(linkToken)/snapshot")
            #expect(snapshot.code == "TRACKING_ENDED")
            let again = try await server.send(.post, path, token: scenario.dispatcher, json: ["reason": "twice"])
            #expect(again.code == "INVALID_STATUS_TRANSITION")
            // Neither a delivery nor a failure can follow: the parcel is going back.
            #expect(
                try await scenario.status(taskId, "ARRIVED_AT_DESTINATION", rider: rider).code
                    == "INVALID_STATUS_TRANSITION")
            #expect(
                try await server.count(
                    "outbox", "recipient_id = ? AND text_key = 'rider.returnToStore'", [.uuid(riderId)])
                    == 1)
            #expect(
                try await server.count(
                    "outbox", "recipient_id = ? AND text_key = 'customer.orderReturning'", [.uuid(scenario.customerId)])
                    == 1)

            let returned = try await scenario.status(
                taskId, "RETURNED_TO_STORE", rider: rider, lat: 43.7396, lon: 7.4276)
            #expect(returned.status == 200, "\(returned.text)")
            let ended = try await server.send(.get, "/api/v1/orders/\(scenario.orderId)", token: scenario.dispatcher)
            #expect(ended["status"] as? String == "RETURNED")
            let me = try await server.send(.get, "/api/v1/rider/me", token: rider)
            #expect(me["availability"] as? String == "ONLINE")
            #expect(try await server.send(.get, "/api/v1/rider/tasks/active", token: rider).status == 404)
            #expect(
                try await server.count(
                    "outbox", "recipient_id = ? AND text_key = 'customer.orderReturned'", [.uuid(scenario.customerId)])
                    == 1)
            let log = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/events", token: scenario.dispatcher)
            let events = log["events"] as? [[String: Any]] ?? []
            let request = try #require(events.first { $0["type"] as? String == "ReturnToStoreRequested" })
            #expect((request["details"] as? [String: Any])?["reason"] as? String == "the customer moved away")
            #expect(events.last?["status"] as? String == "RETURNED_TO_STORE")
            let open = try await server.send(.get, "/api/v1/orders?open=true", token: scenario.dispatcher)
            #expect((open["orders"] as? [[String: Any]])?.isEmpty == true)
        }
    }
}
