import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

/// Issue #57, "problems without words": the kinds riders meet, each with an optional note for dispatchers; the
/// customer told in fixed words of their language when the kind concerns them; a reassigned rider told why.
@Suite("A rider's problem reports and what each person is told", .timeLimit(.minutes(3)))
struct ProblemReportTests {
    static let note = "Shutter down, guard says the owner left at 9"

    static func report(_ server: TestServer, _ taskId: String, rider: String, _ body: [String: Any]) async throws
        -> Reply
    {
        try await server.send(.post, "/api/v1/rider/tasks/\(taskId)/issues", token: rider, json: body)
    }

    @Test(
        "the customer gets the kind's fixed words in their language, never the note; UNSAFE reaches dispatchers only",
        arguments: StoreKind.available)
    func customerWords(kind: StoreKind) async throws {
        try await SignInTests.withTwilio(kind) { twilio, server in
            let phone = "+919820031313"
            let scenario = try await CustomerMessageTests.order(
                server, phone: phone, podType: "PHOTO", locale: "hi-IN", vendor: "Sharma Sweets")
            let (rider, taskId) = try await CustomerMessageTests.assign(scenario)
            try await twilio.wait("the order's and the assignment's texts") {
                $0.messages.filter { $0.to == phone }.count == 2
            }

            let closed = try await Self.report(
                server, taskId, rider: rider, ["type": "STORE_CLOSED", "note": Self.note])
            #expect(closed.status == 201, "\(closed.text)")
            #expect(closed["notified"] as? [String] == ["DISPATCHER", "CUSTOMER"])
            #expect(closed["note"] as? String == Self.note)
            try await twilio.wait("the store-closed text") { $0.messages.filter { $0.to == phone }.count == 3 }
            let text = try #require(twilio.messages(to: phone).last?.body)
            #expect(text == "Rider Logistics: स्टोर बंद है, इसलिए आपके Sharma Sweets ऑर्डर में देर होगी। हम आपसे संपर्क करेंगे।")
            #expect(!text.contains("Shutter"))

            let unsafe = try await Self.report(server, taskId, rider: rider, ["type": "UNSAFE", "note": "Dog loose"])
            #expect(unsafe.status == 201)
            #expect(unsafe["notified"] as? [String] == ["DISPATCHER"])
            // The dispatchers' list has both reports with their notes; the customer's messages stay three.
            let issues = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/issues", token: scenario.dispatcher)
            let listed = try #require(issues["issues"] as? [[String: Any]])
            #expect(Set(listed.compactMap { $0["type"] as? String }) == ["STORE_CLOSED", "UNSAFE"])
            #expect(Set(listed.compactMap { $0["note"] as? String }) == [Self.note, "Dog loose"])
            try await Task.sleep(for: .milliseconds(300))
            #expect(twilio.messages(to: phone).count == 3)
            let customerNotices = try await CustomerMessageTests.notifications(scenario)
            #expect(!customerNotices.contains { ($0["body"] as? String ?? "").contains("Dog") })
        }
    }

    @Test("a note over 500 characters or an unknown kind is 400 VALIDATION_FAILED and stores nothing")
    func badReports() async throws {
        try await TestServer.run(.sqlite) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            let before = try await scenario.snapshot()
            let bodies: [[String: Any]] = [
                ["type": "VEHICLE_TROUBLE", "note": String(repeating: "a", count: 501)],
                ["type": "FLAT_TYRE"],
                ["type": "vehicle_trouble"],
            ]
            for body in bodies {
                let refused = try await Self.report(server, taskId, rider: rider, body)
                #expect(refused.status == 400, "\(body): \(refused.text)")
                #expect(refused.code == "VALIDATION_FAILED")
                #expect(refused.headers[.contentType]?.hasPrefix("application/problem+json") == true)
            }
            #expect(try await server.count("delivery_issues") == 0)
            #expect(try await scenario.snapshot() == before)
            let longest = try await Self.report(
                server, taskId, rider: rider, ["type": "VEHICLE_TROUBLE", "note": String(repeating: "ä", count: 500)])
            #expect(longest.status == 201, "\(longest.text)")
        }
    }

    @Test("a reassigned rider is told why in the fixed words of the reason's kind, not the dispatcher's own")
    func reassignedRiderToldWhy() async throws {
        try await TestServer.run(.sqlite) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (riderId, _, _) = try await scenario.assigned()
            let reassigned = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/reassign", token: scenario.dispatcher,
                json: ["reason": "Ravi is stuck behind the parade, poor guy", "reasonKind": "RIDER_DELAYED"])
            #expect(reassigned.status == 200, "\(reassigned.text)")
            let told = try await server.database.query(
                "SELECT title, body, text_key FROM outbox WHERE order_id = ? AND recipient_id = ?",
                [.text(scenario.orderId), .text(riderId.lowercased)]
            ).filter { $0.optionalString("text_key")?.hasPrefix("rider.orderReassigned") == true }
            #expect(told.count == 1)
            #expect(told.first?.optionalString("text_key") == "rider.orderReassigned.RIDER_DELAYED")
            let body = told.first?.optionalString("body") ?? ""
            #expect(body.contains("because the pickup was running late"), "\(body)")
            #expect(!body.contains("parade"))
            let refused = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/reassign", token: scenario.dispatcher,
                json: ["reason": "again", "reasonKind": "BAD_LUCK"])
            #expect(refused.status == 400 && refused.code == "VALIDATION_FAILED")
        }
    }

    @Test("the fleet says FRESH, STALE past the stated time, or NONE before a rider's first fix")
    func positionFreshness() async throws {
        try await TestServer.run(.sqlite) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let idle = try await scenario.onlineRider(name: "Idle Ida")
            let unseen = try await scenario.onlineRider(name: "New Nadia")
            try await RiderFixes.post(server, rider: idle.token, lat: 43.7347)
            func positions() async throws -> ([String: String], Int?) {
                let reply = try await server.send(.get, "/api/v1/riders", token: scenario.dispatcher)
                let riders = reply["riders"] as? [[String: Any]] ?? []
                let pairs = riders.map { ($0["riderId"] as? String ?? "", $0["position"] as? String ?? "") }
                return (Dictionary(uniqueKeysWithValues: pairs), reply["positionStaleAfterS"] as? Int)
            }
            var (now, staleAfter) = try await positions()
            #expect(staleAfter == 90)
            #expect(now[idle.id.lowercased] == "FRESH")
            #expect(now[unseen.id.lowercased] == "NONE")
            // A minute without a fix is one missed heartbeat and a half: still fresh. Past 90 s it is stale.
            server.clock.advance(by: 60)
            (now, _) = try await positions()
            #expect(now[idle.id.lowercased] == "FRESH")
            server.clock.advance(by: 31)
            (now, _) = try await positions()
            #expect(now[idle.id.lowercased] == "STALE")
            // A rider with no fix yet is still offered an order by hand.
            let offers = try await scenario.offer(to: [unseen.id])
            #expect(offers[unseen.id] != nil)
        }
    }
}
