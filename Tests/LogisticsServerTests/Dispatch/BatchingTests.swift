import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// Batching on Monaco's roads: a rider on the way to a store is offered a second order when it delays the first
/// customer by less than the limit; the trip's stops come in sequence and each order keeps its own statuses.
@Suite("Batching orders into a trip", .timeLimit(.minutes(3)))
struct BatchingTests {
    typealias Auto = AutoDispatchTests

    @Test(
        "a second order from the same store joins the trip; stops in sequence; each order delivered with its own proof",
        arguments: StoreKind.available)
    func sameStoreTrip(store: StoreKind) async throws {
        try await TestServer.run(store, configure: TripScenario.configuration()) { server in
            let trip = try await TripScenario.onTheWay(server)
            let (rider, first, firstTask) = (trip.rider, trip.first, trip.firstTask)
            let second = try await DeliveryScenario.ready(server, podType: "OTP", customerLat: 43.7335)

            let offer = try #require(try await Auto.offer(for: rider.token, on: server), "second order never offered")
            #expect(offer["orderId"] as? String == second.orderId)
            let placement = try #require(offer["trip"] as? [String: Any])
            #expect(placement["stopCount"] as? Int == 4)
            #expect(placement["pickupSequence"] as? Int == 2)
            #expect(placement["dropoffSequence"] as? Int == 4)
            let made = try await Auto.events(second.orderId, server, dispatcher: first.dispatcher).first {
                $0["type"] as? String == "OffersMade"
            }
            let details = try #require(made?["details"] as? [String: String])
            #expect(details["reason"]?.contains("adds the order to a rider's trip of 1 order(s)") == true, "\(details)")
            #expect(details["tripStops"]?.split(separator: ",").count == 4, "\(details)")

            let accepted = try await server.send(
                .post, "/api/v1/rider/offers/\(offer["offerId"] as! String)/accept", token: rider.token)
            #expect(accepted.status == 200, "\(accepted.text)")
            let secondTask = try #require(accepted["taskId"] as? String)
            let stops = try #require(accepted["stops"] as? [[String: Any]])
            #expect(stops.map { $0["taskId"] as? String } == [firstTask, secondTask, firstTask, secondTask])
            #expect(stops.map { $0["kind"] as? String } == ["STORE", "STORE", "CUSTOMER", "CUSTOMER"])
            #expect(stops.map { $0["current"] as? Bool } == [true, false, false, false])

            // The rider works the trip in order; /rider/me and /rider/tasks/active follow the current stop.
            func current() async throws -> (task: String?, availability: String?, stops: [[String: Any]]) {
                let me = try await server.send(.get, "/api/v1/rider/me", token: rider.token)
                let active = try await server.send(.get, "/api/v1/rider/tasks/active", token: rider.token)
                if active.status == 200 { #expect(active["taskId"] as? String == me["activeTaskId"] as? String) }
                return (
                    me["activeTaskId"] as? String, me["availability"] as? String,
                    active["stops"] as? [[String: Any]] ?? []
                )
            }
            let store = Auto.store
            for task in [firstTask, secondTask] {
                #expect(
                    try await first.status(task, "ARRIVED_AT_STORE", rider: rider.token, lat: store.lat, lon: store.lon)
                        .status == 200)
            }
            #expect(try await current().task == firstTask)
            #expect(
                try await first.status(firstTask, "PICKED_UP", rider: rider.token, lat: store.lat, lon: store.lon)
                    .status == 200)
            var now = try await current()
            #expect(now.task == secondTask, "the second pickup comes before the first drop-off")
            #expect(now.stops.map { $0["done"] as? Bool } == [true, false, false, false])
            #expect(
                try await first.status(secondTask, "PICKED_UP", rider: rider.token, lat: store.lat, lon: store.lon)
                    .status == 200)
            #expect(try await current().task == firstTask)

            #expect(try await first.status(firstTask, "ARRIVED_AT_DESTINATION", rider: rider.token).status == 200)
            try await first.deliverWithCode(firstTask, rider: rider.token)
            now = try await current()
            #expect(now.task == secondTask)
            #expect(now.availability == "ON_TASK", "one order delivered, one still on board")
            #expect(now.stops.count == 2)

            #expect(try await second.status(secondTask, "ARRIVED_AT_DESTINATION", rider: rider.token).status == 200)
            try await second.deliverWithCode(secondTask, rider: rider.token)
            now = try await current()
            #expect(now.task == nil)
            #expect(now.availability == "ONLINE")

            // Each order has its own complete status sequence in its own log.
            for scenario in [first, second] {
                let statuses = try await Auto.events(scenario.orderId, server, dispatcher: first.dispatcher)
                    .filter { $0["type"] as? String == "DeliveryStatusUpdated" }.compactMap { $0["status"] as? String }
                #expect(statuses == ["ARRIVED_AT_STORE", "PICKED_UP", "ARRIVED_AT_DESTINATION", "DELIVERED"])
            }
        }
    }

    @Test("both customers of a batched trip see the rider move", arguments: StoreKind.available)
    func bothCustomersFollow(store: StoreKind) async throws {
        try await TestServer.run(store, mode: .live, configure: TripScenario.configuration()) { server in
            let trip = try await TripScenario.onTheWay(server)
            let (rider, first, firstTask) = (trip.rider, trip.first, trip.firstTask)
            let second = try await DeliveryScenario.ready(server, podType: "OTP", customerLat: 43.7335)
            let offer = try #require(try await Auto.offer(for: rider.token, on: server), "second order never offered")
            let accepted = try await server.send(
                .post, "/api/v1/rider/offers/\(offer["offerId"] as! String)/accept", token: rider.token)
            let secondTask = try #require(accepted["taskId"] as? String)
            let store = Auto.store
            for task in [firstTask, secondTask] {
                #expect(
                    try await first.status(task, "ARRIVED_AT_STORE", rider: rider.token, lat: store.lat, lon: store.lon)
                        .status == 200)
            }
            for task in [firstTask, secondTask] {
                #expect(
                    try await first.status(task, "PICKED_UP", rider: rider.token, lat: store.lat, lon: store.lon)
                        .status == 200)
            }
            let followers = [first, second].map {
                TrackingFollower(port: server.port, orderId: $0.orderId, token: $0.customer)
            }
            for follower in followers { try await follower.wait { $0.first?["type"] as? String == "snapshot" } }
            for step in 0..<3 {
                try await RiderFixes.post(
                    server, rider: rider.token, lat: store.lat - 0.0005 * Double(step + 1), lon: store.lon,
                    after: Double(step))
            }
            for follower in followers {
                try await follower.wait { $0.filter { $0["type"] as? String == "location" }.count == 3 }
            }
        }
    }

    @Test("batching off, or a delay past the limit: a rider on a task gets no second offer")
    func notBatched() async throws {
        for limit in [nil, 30.0] as [Double?] {
            try await TestServer.run(.sqlite, configure: TripScenario.configuration(maxDelaySeconds: limit)) { server in
                let rider = try await TripScenario.onTheWay(server).rider
                let second = try await DeliveryScenario.ready(server, podType: "OTP", customerLat: 43.7335)
                try await Task.sleep(for: .milliseconds(1_000))
                let offers = try await server.send(.get, "/api/v1/rider/offers", token: rider.token)
                #expect((offers["offers"] as? [Any])?.isEmpty == true, "limit \(String(describing: limit))")
                let order = try await server.send(.get, "/api/v1/orders/\(second.orderId)", token: second.dispatcher)
                #expect(order["status"] as? String == "READY_FOR_PICKUP")
            }
        }
    }

    @Test("a cancelled order leaves the trip; the rider goes on with the other and is free after it")
    func cancelledLeg() async throws {
        try await TestServer.run(.sqlite, configure: TripScenario.configuration()) { server in
            let trip = try await TripScenario.onTheWay(server)
            let (rider, first, firstTask) = (trip.rider, trip.first, trip.firstTask)
            let second = try await DeliveryScenario.ready(server, podType: "OTP", customerLat: 43.7335)
            let offer = try #require(try await Auto.offer(for: rider.token, on: server))
            let accepted = try await server.send(
                .post, "/api/v1/rider/offers/\(offer["offerId"] as! String)/accept", token: rider.token)
            let secondTask = try #require(accepted["taskId"] as? String)

            let cancelled = try await server.send(
                .post, "/api/v1/orders/\(first.orderId)/cancel", token: first.dispatcher, json: ["reason": "test"])
            #expect(cancelled.status == 200, "\(cancelled.text)")
            var me = try await server.send(.get, "/api/v1/rider/me", token: rider.token)
            #expect(me["activeTaskId"] as? String == secondTask)
            #expect(me["availability"] as? String == "ON_TASK")
            let refused = try await first.status(firstTask, "ARRIVED_AT_STORE", rider: rider.token)
            #expect(refused.status == 409)

            try await second.arrive(secondTask, rider: rider.token)
            try await second.deliverWithCode(secondTask, rider: rider.token)
            me = try await server.send(.get, "/api/v1/rider/me", token: rider.token)
            #expect(me["availability"] as? String == "ONLINE")
            #expect(me["activeTaskId"] as? String == nil)
        }
    }
}
