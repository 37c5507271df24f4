import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// Riders are timed by what they ride (issue 57, item 12): the server routes on one road graph (the motorcycle's), so
/// a bicycle rider's time is the road time but never faster than 15 km/h over the route's length. A bicycle and a
/// motorcycle at the same place: automatic dispatch asks the motorcycle, and the store's view of the rider coming, the
/// customer's ETA and the ETAs kept for scoring are all longer for the bicycle, by the speed rule.
@Suite("Riders timed by their vehicle", .timeLimit(.minutes(3)))
struct RiderVehicleTimingTests {
    static let store = GeoPoint(lat: 43.7396, lon: 7.4276)
    static let customer = GeoPoint(lat: 43.7347, lon: 7.4240)
    /// About 1.5 km from the store in a straight line: far enough for a bicycle to be minutes slower.
    static let start = GeoPoint(lat: 43.7289, lon: 7.4170)

    /// A rider added by a dispatcher with their vehicle, signed in and online.
    static func rider(_ vehicle: String, phone: String, on server: TestServer, dispatcher: String) async throws
        -> (id: UUID, token: String)
    {
        let added = try await server.send(
            .post, "/api/v1/riders", token: dispatcher,
            json: ["name": "\(vehicle.capitalized) Rider", "phone": phone, "vehicle": vehicle])
        #expect(added.status == 201, "\(added.text)")
        let personId = try #require(added["personId"] as? String)
        let id = try #require(UUID(uuidString: personId))
        let token = try await server.token(.rider, id, name: "\(vehicle.capitalized) Rider")
        let online = try await server.send(
            .put, "/api/v1/rider/availability", token: token, json: ["status": "ONLINE"])
        #expect(online.status == 200, "\(online.text)")
        return (id, token)
    }

    /// The router's time and length between two places (a matrix cell equals the route between them).
    static func road(from: GeoPoint, to: GeoPoint, on server: TestServer, dispatcher: String) async throws
        -> (seconds: Double, metres: Double)
    {
        let reply = try await server.send(
            .post, "/api/v1/matrix", token: dispatcher,
            json: [
                "sources": [["lat": from.lat, "lon": from.lon]], "destinations": [["lat": to.lat, "lon": to.lon]],
            ])
        #expect(reply.status == 200, "\(reply.text)")
        let seconds = try #require((reply["durations"] as? [[Double]])?.first?.first)
        let metres = try #require((reply["distances"] as? [[Double]])?.first?.first)
        return (seconds, metres)
    }

    /// A posted fix at a place, `after` seconds from now on the test clock.
    static func fix(at point: GeoPoint, rider: String, after seconds: TimeInterval, on server: TestServer)
        async throws
    {
        let fix: [String: Any] = [
            "lat": point.lat, "lon": point.lon, "accuracyM": 5,
            "recordedAt": RFC3339.string(from: server.clock.now().addingTimeInterval(seconds)),
        ]
        let reply = try await server.send(.post, "/api/v1/rider/locations", token: rider, json: ["fixes": [fix]])
        #expect(reply.status == 202, "\(reply.text)")
    }

    @Test(
        "automatic dispatch asks the motorcycle before a bicycle at the same place, which waited longer",
        arguments: StoreKind.available)
    func dispatchPrefersTheMotorcycle(kind: StoreKind) async throws {
        try await TestServer.run(kind, configure: AutoDispatchTests.automatic(rounds: 3)) { server in
            let dispatcher = try await server.token(.dispatcher)
            // The bicycle has waited a minute longer: a tie would go to them.
            let bicycle = try await Self.rider("BICYCLE", phone: "+37799445571", on: server, dispatcher: dispatcher)
            server.clock.advance(by: 60)
            let motorcycle = try await Self.rider(
                "MOTORCYCLE", phone: "+37799445572", on: server, dispatcher: dispatcher)
            try await AutoDispatchTests.place(bicycle.id, at: Self.start, on: server)
            try await AutoDispatchTests.place(motorcycle.id, at: Self.start, on: server)
            let road = try await Self.road(from: Self.start, to: Self.store, on: server, dispatcher: dispatcher)
            let bicycleSeconds = max(road.seconds, road.metres * 3.6 / 15)
            #expect(bicycleSeconds > road.seconds + 30, "the bicycle should be out of the tie band: \(road)")

            let setup = try await DeliveryScenario.ready(server)
            let offer = try #require(
                try await AutoDispatchTests.offer(for: motorcycle.token, on: server), "the motorcycle was not asked")
            #expect(offer["orderId"] as? String == setup.orderId)
            let made = try await AutoDispatchTests.events(setup.orderId, server, dispatcher: dispatcher).filter {
                $0["type"] as? String == "OffersMade"
            }
            let details = try #require(made.first?["details"] as? [String: String])
            let considered = (details["considered"] ?? "").split(separator: ",").map(String.init)
            #expect(considered.count == 2, "\(details)")
            func seconds(of rider: UUID) -> Double? {
                considered.first { $0.hasPrefix(rider.lowercased + ":") }
                    .flatMap { Double($0.split(separator: ":")[1].dropLast()) }
            }
            let motorcycleTime = try #require(seconds(of: motorcycle.id), "\(considered)")
            let bicycleTime = try #require(seconds(of: bicycle.id), "\(considered)")
            #expect(abs(motorcycleTime - road.seconds) <= 2, "\(motorcycleTime) vs \(road)")
            #expect(abs(bicycleTime - bicycleSeconds) <= 2, "\(bicycleTime) vs \(bicycleSeconds)")
            #expect(considered.first?.hasPrefix(motorcycle.id.lowercased) == true, "\(considered)")
            #expect(details["roadSeconds"] == "\(Int(motorcycleTime))", "\(details)")
        }
    }

    @Test(
        "a dispatcher's offer to the nearest rider goes to a motorcycle before a bicycle nearer the store",
        arguments: StoreKind.available)
    func nearestStrategyPrefersTheMotorcycle(kind: StoreKind) async throws {
        try await TestServer.run(kind, configure: MapFixture.monaco) { server in
            let dispatcher = try await server.token(.dispatcher)
            let bicycle = try await Self.rider("BICYCLE", phone: "+37799445575", on: server, dispatcher: dispatcher)
            let motorcycle = try await Self.rider(
                "MOTORCYCLE", phone: "+37799445576", on: server, dispatcher: dispatcher)
            // The bicycle nearer the store, quicker by motorbike, slower by its own speed.
            let nearer = GeoPoint(lat: 43.7347, lon: 7.4206)
            try await AutoDispatchTests.place(bicycle.id, at: nearer, on: server)
            try await AutoDispatchTests.place(motorcycle.id, at: Self.start, on: server)
            let bicycleRoad = try await Self.road(from: nearer, to: Self.store, on: server, dispatcher: dispatcher)
            let motorcycleRoad = try await Self.road(
                from: Self.start, to: Self.store, on: server, dispatcher: dispatcher)
            #expect(bicycleRoad.seconds < motorcycleRoad.seconds, "\(bicycleRoad) vs \(motorcycleRoad)")
            #expect(bicycleRoad.metres * 3.6 / 15 > motorcycleRoad.seconds, "\(bicycleRoad) vs \(motorcycleRoad)")
            let scenario = try await DeliveryScenario.ready(server)
            let reply = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/offers", token: dispatcher,
                json: ["strategy": "nearest", "count": 1])
            #expect(reply.status == 201, "\(reply.text)")
            let offered = (reply["offers"] as? [[String: Any]] ?? []).compactMap { $0["riderId"] as? String }
            #expect(offered == [motorcycle.id.lowercased], "\(offered)")
        }
    }

    @Test(
        "the store's view of the rider coming, the rider's route and the customer's ETA are a bicycle's, by its speed",
        arguments: StoreKind.available)
    func storeAndCustomerTimes(kind: StoreKind) async throws {
        try await TestServer.run(kind, configure: MapFixture.monaco) { server in
            let dispatcher = try await server.token(.dispatcher)
            let bicycle = try await Self.rider("BICYCLE", phone: "+37799445573", on: server, dispatcher: dispatcher)
            let motorcycle = try await Self.rider(
                "MOTORCYCLE", phone: "+37799445574", on: server, dispatcher: dispatcher)
            var tasks: [(scenario: DeliveryScenario, rider: String, taskId: String)] = []
            for rider in [bicycle, motorcycle] {
                let scenario = try await DeliveryScenario.ready(server, podType: "OTP")
                let offers = try await scenario.offer(to: [rider.id])
                let offerId = try #require(offers[rider.id])
                let accepted = try await server.send(
                    .post, "/api/v1/rider/offers/\(offerId)/accept", token: rider.token)
                #expect(accepted.status == 200, "\(accepted.text)")
                tasks.append((scenario, rider.token, try #require(accepted["taskId"] as? String)))
            }

            // On the way to the store, both at the same place.
            let toStore = try await Self.road(from: Self.start, to: Self.store, on: server, dispatcher: dispatcher)
            var coming: [Int] = []
            for (scenario, rider, _) in tasks {
                try await Self.fix(at: Self.start, rider: rider, after: 0, on: server)
                let pickup = try await server.send(
                    .get, "/api/v1/orders/\(scenario.orderId)/pickup", token: dispatcher)
                #expect(pickup["stage"] as? String == "ON_THE_WAY", "\(pickup.text)")
                coming.append(try #require(pickup["etaSeconds"] as? Int, "\(pickup.text)"))
            }
            #expect(abs(Double(coming[1]) - toStore.seconds) <= 1, "motorcycle \(coming[1]) vs \(toStore)")
            #expect(abs(Double(coming[0]) - toStore.metres * 3.6 / 15) <= 1, "bicycle \(coming[0]) vs \(toStore)")
            #expect(coming[0] > coming[1])
            // The rider's own route to the store says the same: the road is the motorbike's, the time the rider's.
            for ((_, rider, taskId), expected) in zip(tasks, [toStore.metres * 3.6 / 15, toStore.seconds]) {
                let route = try await server.send(
                    .get, "/api/v1/rider/tasks/\(taskId)/route?from=\(Self.start.lat),\(Self.start.lon)",
                    token: rider)
                let seconds = try #require(route["durationS"] as? Double, "\(route.text)")
                #expect(abs(seconds - expected) <= 1, "task route \(seconds) vs \(expected)")
                let steps = (route["legs"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]] ?? []
                let stepSeconds = steps.compactMap { $0["durationS"] as? Double }.reduce(0, +)
                #expect(abs(stepSeconds - seconds) <= 1, "steps \(stepSeconds) vs \(seconds)")
                let active = try await server.send(.get, "/api/v1/rider/tasks/active", token: rider)
                let activeSeconds = try #require(
                    (active["route"] as? [String: Any])?["durationS"] as? Double, "\(active.text)")
                #expect(abs(activeSeconds - expected) <= 1, "active task route \(activeSeconds) vs \(expected)")
            }

            // Picked up at the store; then both at the same place on the way to their customers (the same door).
            let fromStore = try await Self.road(
                from: Self.store, to: Self.customer, on: server, dispatcher: dispatcher)
            let toDoor = try await Self.road(from: Self.start, to: Self.customer, on: server, dispatcher: dispatcher)
            var etas: [Int] = []
            var kept: [Double] = []
            for (scenario, rider, taskId) in tasks {
                for status in ["ARRIVED_AT_STORE", "PICKED_UP"] {
                    let reply = try await scenario.status(
                        taskId, status, rider: rider, lat: Self.store.lat, lon: Self.store.lon)
                    #expect(reply.status == 200, "\(status): \(reply.text)")
                }
                // The ETA kept at pickup, from the store to the door.
                let predicted = try await eventually {
                    try await server.database.first(
                        "SELECT remaining_s FROM eta_predictions WHERE order_id = ? ORDER BY predicted_at",
                        [.text(scenario.orderId)]
                    )?.optionalDouble("remaining_s")
                }
                kept.append(try #require(predicted, "no ETA was kept at pickup"))
                try await Self.fix(at: Self.start, rider: rider, after: 1, on: server)
                let tracking = try await server.send(
                    .get, "/api/v1/customer/orders/\(scenario.orderId)/tracking", token: scenario.customer)
                #expect(tracking.status == 200, "\(tracking.text)")
                etas.append(try #require(tracking["etaSeconds"] as? Int, "\(tracking.text)"))
            }
            let bicycleFromStore = max(fromStore.seconds, fromStore.metres * 3.6 / 15)
            #expect(abs(kept[1] - fromStore.seconds) <= 1, "motorcycle kept \(kept[1]) vs \(fromStore)")
            #expect(abs(kept[0] - bicycleFromStore) <= 1, "bicycle kept \(kept[0]) vs \(fromStore)")
            #expect(kept[0] > kept[1])
            let bicycleToDoor = max(toDoor.seconds, toDoor.metres * 3.6 / 15)
            #expect(abs(Double(etas[1]) - toDoor.seconds) <= 1, "motorcycle ETA \(etas[1]) vs \(toDoor)")
            #expect(abs(Double(etas[0]) - bicycleToDoor) <= 1, "bicycle ETA \(etas[0]) vs \(toDoor)")
            #expect(etas[0] > etas[1])
        }
    }

    @Test("a rider's changed vehicle counts at once on the instance that changed it", arguments: StoreKind.available)
    func changedVehicle(kind: StoreKind) async throws {
        try await TestServer.run(kind, configure: MapFixture.monaco) { server in
            let dispatcher = try await server.token(.dispatcher)
            let rider = try await Self.rider("BICYCLE", phone: "+37799445577", on: server, dispatcher: dispatcher)
            let scenario = try await DeliveryScenario.ready(server)
            let offers = try await scenario.offer(to: [rider.id])
            let offerId = try #require(offers[rider.id])
            let accepted = try await server.send(.post, "/api/v1/rider/offers/\(offerId)/accept", token: rider.token)
            #expect(accepted.status == 200, "\(accepted.text)")
            try await Self.fix(at: Self.start, rider: rider.token, after: 0, on: server)
            let road = try await Self.road(from: Self.start, to: Self.store, on: server, dispatcher: dispatcher)
            func coming() async throws -> Int? {
                try await server.send(.get, "/api/v1/orders/\(scenario.orderId)/pickup", token: dispatcher)[
                    "etaSeconds"] as? Int
            }
            let byBicycle = try #require(try await coming())
            #expect(abs(Double(byBicycle) - road.metres * 3.6 / 15) <= 1, "\(byBicycle) vs \(road)")
            let changed = try await server.send(
                .patch, "/api/v1/riders/\(rider.id.lowercased)", token: dispatcher, json: ["vehicle": "MOTORCYCLE"])
            #expect(changed.status == 200, "\(changed.text)")
            let byMotorcycle = try #require(try await coming())
            #expect(abs(Double(byMotorcycle) - road.seconds) <= 1, "\(byMotorcycle) vs \(road)")
        }
    }
}
