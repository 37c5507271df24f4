import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// The tracking link after delivery (CUS-028 in full): the proof, one rating, and what dispatchers read of ratings;
/// and, on the way, the delivery code and the road left on the customer's page.
@Suite("The tracking page after delivery", .timeLimit(.minutes(3)))
struct TrackingAfterDeliveryTests {
    static func link(_ scenario: DeliveryScenario) async throws -> String {
        let link = try await scenario.server.send(
            .post, "/api/v1/orders/\(scenario.orderId)/tracking-links", token: scenario.customer)
        return try #require(link["token"] as? String)
    }

    /// What a refused rating must leave as it was.
    static func ratings(_ server: TestServer) async throws -> [Int] {
        [try await server.count("delivery_ratings"), try await server.count("order_events")]
    }

    static func expectProblem(_ reply: Reply, _ status: Int, _ code: String, _ what: String) {
        #expect(reply.status == status, "\(what): \(reply.text)")
        #expect(reply.code == code, "\(what)")
        #expect(reply.contentType == "application/problem+json", "\(what)")
    }

    @Test(
        "an OTP order: the code on its way, 'Code confirmed' after, one rating; every bad rating changes nothing",
        arguments: StoreKind.available)
    func codeOrderRating(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (scenario, rider, taskId) = try await DeliveryScenario.inTransit(server, podType: "OTP")
            let token = try await Self.link(scenario)
            let view = try await server.send(
                .get, "/api/v1/customer/orders/\(scenario.orderId)", token: scenario.customer)
            let code = try #require(view["deliveryOtp"] as? String)
            let onTheWay = try await server.send(.get, "/track/\(token)")
            #expect(onTheWay.text.contains("Share code <strong>\(code)</strong> with your rider"), "\(onTheWay.text)")
            #expect(onTheWay.text.contains(#"data-code-later="false""#))

            let before = try await Self.ratings(server)
            let early = try await server.send(.post, "/track/\(token)/rating", json: ["stars": 5])
            Self.expectProblem(early, 409, "NOT_DELIVERED", "before delivery")
            #expect(try await Self.ratings(server) == before)

            try await scenario.status(taskId, "ARRIVED_AT_DESTINATION", rider: rider)
            try await scenario.deliverWithCode(taskId, rider: rider)
            let delivered = try await Self.ratings(server)

            let long = String(repeating: "a", count: 2000)
            let bad: [(String, Any)] = [
                ("0 stars", ["stars": 0]), ("6 stars", ["stars": 6]), ("4.5 stars", ["stars": 4.5]),
                ("stars as text", ["stars": "5"]), ("no stars", ["comment": "fine"]),
                ("a 2,000 character comment", ["stars": 4, "comment": long]),
                ("a 1,001 character comment", ["stars": 4, "comment": String(repeating: "é", count: 1001)]),
            ]
            for (what, body) in bad {
                let reply = try await server.send(.post, "/track/\(token)/rating", json: body)
                Self.expectProblem(reply, 400, "VALIDATION_FAILED", what)
            }
            for wrong in [TrackingLinksFixture.unknownOrderToken(server), TrackingLinksFixture.tampered(token)] {
                let reply = try await server.send(.post, "/track/\(wrong)/rating", json: ["stars": 5])
                Self.expectProblem(reply, 404, "NOT_FOUND", "a link that opens nothing")
            }
            let plain = try await server.send(
                .post, "/track/\(token)/rating", raw: Data("stars=5".utf8), contentType: "text/plain")
            Self.expectProblem(plain, 415, "UNSUPPORTED_MEDIA_TYPE", "not JSON")
            #expect(try await Self.ratings(server) == delivered)

            let rated = try await server.send(
                .post, "/track/\(token)/rating", json: ["stars": 4, "comment": "  Quick and polite  "])
            #expect(rated.status == 201, "\(rated.text)")
            #expect(rated["stars"] as? Int == 4)
            #expect(rated["comment"] as? String == "Quick and polite")
            #expect(rated["orderId"] as? String == scenario.orderId)
            #expect(try await server.count("delivery_ratings") == 1)

            let again = try await server.send(.post, "/track/\(token)/rating", json: ["stars": 1])
            Self.expectProblem(again, 409, "ALREADY_RATED", "a second rating")
            let repeated = try await server.send(.post, "/track/\(token)/rating", json: ["stars": 0])
            #expect(repeated.status == 400, "validation comes first, and changes nothing either")
            #expect(try await server.count("delivery_ratings", "stars = 4") == 1)

            // The page: the outcome, the code's proof, the rating given and no form; 200 while the link lasts.
            let page = try await server.send(.get, "/track/\(token)")
            #expect(page.status == 200)
            #expect(page.text.contains("Delivered at <time datetime="))
            #expect(page.text.contains("✓ Code confirmed"))
            #expect(page.text.contains("Your rating: 4 of 5") && !page.text.contains(#"<form id="rating""#))
            #expect(!page.text.contains(code), "the code is over once it was used")
            #expect(try await server.send(.get, "/track/\(token)/proof-photo").status == 404, "no photo to show")

            // Dispatchers read it on the order; the customer's and the store's order document does not carry it.
            let order = try await server.send(.get, "/api/v1/orders/\(scenario.orderId)", token: scenario.dispatcher)
            let rating = try #require(order["rating"] as? [String: Any])
            #expect(rating["stars"] as? Int == 4 && rating["comment"] as? String == "Quick and polite")
            #expect(rating["ratedAt"] is String)
            let own = try await server.send(.get, "/api/v1/orders/\(scenario.orderId)", token: scenario.customer)
            #expect(own.status == 200 && own["rating"] == nil)
        }
    }

    @Test(
        "a photo order: the thumbnail from the link, a rating form until rated, the rider's average, and the end",
        arguments: StoreKind.available)
    func photoOrderRating(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let first = try await DeliveryScenario.ready(server, podType: "PHOTO")
            let (riderId, rider, taskId) = try await first.assigned()
            let token = try await Self.link(first)
            #expect(try await server.send(.get, "/track/\(token)/proof-photo").status == 404, "before delivery")
            try await Self.deliverWithPhoto(first, taskId: taskId, rider: rider)

            let page = try await server.send(.get, "/track/\(token)")
            #expect(page.status == 200)
            #expect(
                page.text.contains(#"<img id="proof-photo" class="proof-thumb" src="/track/\#(token)/proof-photo""#))
            #expect(page.text.contains(#"<form id="rating""#) && page.text.contains("Excellent"))
            #expect(page.text.contains(#"<script type="module" src="/web/Tracking/track-rating.js"></script>"#))
            TrackingPageTests.expectSecured(page, "delivered page")
            let photo = try await server.send(.get, "/track/\(token)/proof-photo")
            #expect(photo.status == 200 && photo.body == Data(Photos.jpeg) && photo.contentType == "image/jpeg")
            #expect(photo.headers[.cacheControl] == "no-store")
            let hindi = try await server.send(.get, "/track/\(token)", headers: ["Accept-Language": "hi"])
            #expect(hindi.text.contains("आपकी डिलीवरी कैसी रही?") && hindi.text.contains("डिलीवरी का सबूत"))

            // A comment of exactly 1,000 characters is taken whole.
            let longest = String(repeating: "ह", count: 1000)
            let rated = try await server.send(.post, "/track/\(token)/rating", json: ["stars": 5, "comment": longest])
            #expect(rated.status == 201, "\(rated.text)")

            // The same rider's second delivery, rated 2: the rider's average is 3.5 over 2.
            let second = try await DeliveryScenario.ready(server, podType: "PHOTO")
            let offers = try await second.offer(to: [riderId])
            let accepted = try await server.send(
                .post, "/api/v1/rider/offers/\(offers[riderId]!)/accept", token: rider)
            let secondTask = try #require(accepted["taskId"] as? String)
            let secondToken = try await Self.link(second)
            try await Self.deliverWithPhoto(second, taskId: secondTask, rider: rider)
            // Eight ratings sent at once: exactly one is taken, the others are told it was rated.
            let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        let reply = try await server.send(.post, "/track/\(secondToken)/rating", json: ["stars": 2])
                        return (reply.status, reply.code)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == 201 }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0 == (409, "ALREADY_RATED") }.count == 7, "\(statuses)")
            let summary = try await server.send(
                .get, "/api/v1/riders/\(riderId.lowercased)/ratings", token: first.dispatcher)
            #expect(summary.status == 200, "\(summary.text)")
            #expect(summary["count"] as? Int == 2)
            #expect(summary["averageStars"] as? Double == 3.5)
            let newest = try #require(summary["ratings"] as? [[String: Any]])
            #expect(newest.map { $0["stars"] as? Int } == [2, 5] || newest.map { $0["stars"] as? Int } == [5, 2])
            let unrated = try await server.send(
                .get, "/api/v1/riders/\(UUID().lowercased)/ratings", token: first.dispatcher)
            #expect(unrated.status == 404)
            let stranger = try await server.send(
                .get, "/api/v1/riders/\(riderId.lowercased)/ratings?sort=stars", token: first.dispatcher)
            #expect(stranger.status == 400 && stranger.code == "VALIDATION_FAILED")

            // Past the link's time after the end nothing opens: not the photo, not a rating.
            server.clock.advance(
                by: TimeInterval(server.components.configuration.tracking.linkHoursAfterEnd + 1) * 3600)
            Self.expectProblem(
                try await server.send(.get, "/track/\(token)/proof-photo"), 410, "TRACKING_ENDED", "expired photo")
            Self.expectProblem(
                try await server.send(.post, "/track/\(token)/rating", json: ["stars": 3]), 410, "TRACKING_ENDED",
                "expired link")
            #expect(try await server.send(.get, "/track/\(token)").status == 410)
        }
    }

    static func deliverWithPhoto(_ scenario: DeliveryScenario, taskId: String, rider: String) async throws {
        try await scenario.arrive(taskId, rider: rider)
        let form = Photos.multipart(photo: Photos.jpeg, fields: Photos.fields(scenario.server))
        let proof = try await scenario.server.send(
            .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: form.body, contentType: form.contentType)
        #expect(proof.status == 201, "\(proof.text)")
        #expect(try await scenario.status(taskId, "DELIVERED", rider: rider).status == 200)
    }

    @Test("in transit the link's snapshot carries the road left to the door, and the rider's heading")
    func remainingRoute() async throws {
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            let (scenario, rider, _) = try await DeliveryScenario.inTransit(server)
            let token = try await Self.link(scenario)
            func ride(to lat: Double, _ lon: Double, heading: Double) async throws -> (Reply, [GeoPoint]) {
                let fix: [String: Any] = [
                    "lat": lat, "lon": lon, "accuracyM": 5, "speedMps": 7, "headingDeg": heading,
                    "recordedAt": RFC3339.string(from: server.clock.now()),
                ]
                server.clock.advance(by: 6)
                #expect(
                    try await server.send(.post, "/api/v1/rider/locations", token: rider, json: ["fixes": [fix]])
                        .status == 202)
                let snapshot = try await server.send(.get, "/track/\(token)/snapshot")
                #expect(snapshot.status == 200, "\(snapshot.text)")
                let line = try #require(snapshot["remainingRoute"] as? String)
                return (snapshot, try #require(Polyline.decode(line)))
            }
            let door = GeoPoint(lat: 43.7347, lon: 7.4240)
            let (far, farLine) = try await ride(to: 43.7380, 7.4262, heading: 200)
            #expect(((far["rider"] as? [String: Any])?["headingDeg"] as? Double) == 200)
            #expect(farLine.count >= 2)
            #expect(farLine.first!.distanceM(to: GeoPoint(lat: 43.7380, lon: 7.4262)) < 100, "starts at the rider")
            #expect(farLine.last!.distanceM(to: door) < 100, "ends at the door")
            let (near, nearLine) = try await ride(to: 43.7360, 7.4250, heading: 225)
            #expect(((near["rider"] as? [String: Any])?["headingDeg"] as? Double) == 225)
            #expect(Self.length(nearLine) < Self.length(farLine), "the line shortens as the rider nears the door")
            #expect(
                (near["remainingDistanceM"] as? Double ?? .infinity) < (far["remainingDistanceM"] as? Double ?? 0))
        }
    }

    static func length(_ line: [GeoPoint]) -> Double {
        zip(line, line.dropFirst()).reduce(0) { $0 + $1.0.distanceM(to: $1.1) }
    }
}
