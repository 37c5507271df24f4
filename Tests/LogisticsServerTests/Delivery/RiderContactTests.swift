import Foundation
import LogisticsCore
import RiderKit
import Testing

@testable import TestSupport

/// Issue #20, "who sees what": a rider reaches the customer through a masked phone while the task is under way,
/// and has nothing of the customer once it has ended.
@Suite("What a rider sees of the customer", .timeLimit(.minutes(3)))
struct RiderContactTests {
    /// The customer of `Fixtures.order`, as a rider must never see them in full.
    static let fullPhone = ["+377 93 15 00 01", "93 15 00 01", "37793150001"]
    /// What identifies or reaches the customer; none of it may reach a rider once the task has ended.
    static let contact = ["Priya Shah", "Quai Antoine 1er", "Ring twice", "*******0001"] + fullPhone

    /// A rider who has accepted the scenario's order; returns the rider's token, the task and the accepting offer.
    static func accepted(_ scenario: DeliveryScenario) async throws -> (rider: String, taskId: String, offerId: String)
    {
        let rider = try await scenario.onlineRider()
        let offerId = try #require(try await scenario.offer(to: [rider.id])[rider.id])
        let accepted = try await scenario.server.send(
            .post, "/api/v1/rider/offers/\(offerId)/accept", token: rider.token)
        #expect(accepted.status == 200)
        return (rider.token, try #require(accepted["taskId"] as? String), offerId)
    }

    /// The task's customer is `null` and no contact is anywhere in the body.
    static func expectNoContact(_ reply: Reply, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply["customer"] is NSNull, "\(what): \(reply.text)", sourceLocation: sourceLocation)
        #expect(reply["notes"] == nil && reply["nextStop"] == nil, "\(what)", sourceLocation: sourceLocation)
        for text in contact {
            #expect(!reply.text.contains(text), "\(what) shows \(text)", sourceLocation: sourceLocation)
        }
    }

    @Test("while the task is under way the phone is masked in every answer the rider gets")
    func maskedWhileActive() async throws {
        try await TestServer.run(.sqlite) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let offers = try await server.send(.get, "/api/v1/rider/offers", token: try await server.token(.rider))
            #expect(offers.status == 200)
            let (rider, taskId, _) = try await Self.accepted(scenario)
            var answers = [try await server.send(.get, "/api/v1/rider/tasks/active", token: rider)]
            for status in ["ARRIVED_AT_STORE", "PICKED_UP"] {
                answers.append(try await scenario.status(taskId, status, rider: rider))
            }
            for reply in answers {
                #expect(reply.status == 200)
                let customer = try #require(reply["customer"] as? [String: Any])
                #expect(customer["phoneMasked"] as? String == "*******0001")
                #expect(customer["name"] as? String == "Priya Shah")
                for text in Self.fullPhone { #expect(!reply.text.contains(text)) }
            }
        }
    }

    @Test("with a call-masking number configured the rider calls through it; the customer's number stays hidden")
    func proxyNumber() async throws {
        try await TestServer.run(.sqlite, configure: { $0.delivery.riderContactNumber = "+377 99 00 00 00" }) {
            server in
            let scenario = try await DeliveryScenario.ready(server)
            let (rider, taskId, _) = try await Self.accepted(scenario)
            let active = try await server.send(.get, "/api/v1/rider/tasks/active", token: rider)
            let customer = try #require(active["customer"] as? [String: Any])
            #expect(customer["phone"] as? String == "+377 99 00 00 00")
            #expect(customer["phoneMasked"] as? String == "*******0001")
            for text in Self.fullPhone { #expect(!active.text.contains(text)) }
            let moving = try await scenario.status(taskId, "ARRIVED_AT_STORE", rider: rider)
            #expect((moving["customer"] as? [String: Any])?["phone"] as? String == "+377 99 00 00 00")
        }
    }

    @Test("the assigned rider cannot read the order document, which has the full phone: 403 for the role")
    func noOrderDocumentForRiders() async throws {
        try await TestServer.run(.sqlite) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (rider, _, _) = try await Self.accepted(scenario)
            let order = try await server.send(.get, "/api/v1/orders/\(scenario.orderId)", token: rider)
            #expect(order.status == 403)
            #expect(order.code == "FORBIDDEN")
            for text in Self.contact { #expect(!order.text.contains(text)) }
            let customer = try await server.send(.get, "/api/v1/orders/\(scenario.orderId)", token: scenario.customer)
            #expect((customer["customer"] as? [String: Any])?["phone"] as? String == "+377 93 15 00 01")
        }
    }

    @Test("a delivered task carries no customer contact, in its answer, its retry and a repeated accept")
    func noContactAfterDelivery() async throws {
        try await TestServer.run(.sqlite) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (rider, taskId, offerId) = try await Self.accepted(scenario)
            try await scenario.arrive(taskId, rider: rider)
            let form = Photos.multipart(photo: Photos.jpeg, fields: Photos.fields(server))
            let proof = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: form.body, contentType: form.contentType)
            #expect(proof.status == 201)
            let eventId = UUID()
            let delivered = try await scenario.status(taskId, "DELIVERED", rider: rider, eventId: eventId)
            #expect(delivered.status == 200)
            #expect(delivered["status"] as? String == "DELIVERED")
            Self.expectNoContact(delivered, "DELIVERED")
            Self.expectNoContact(
                try await scenario.status(taskId, "DELIVERED", rider: rider, eventId: eventId), "the retried tap")
            let again = try await server.send(.post, "/api/v1/rider/offers/\(offerId)/accept", token: rider)
            #expect(again.status == 200)
            Self.expectNoContact(again, "a repeated accept")
            let active = try await server.send(.get, "/api/v1/rider/tasks/active", token: rider)
            #expect(active.code == "NO_ACTIVE_TASK")
            // The rider's own photo stays theirs; it is not the customer's contact.
            let image = try #require(proof["imageUrl"] as? String)
            #expect(try await server.send(.get, image, token: rider).status == 200)
        }
    }

    @Test("a failed task and a cancelled one carry no customer contact either")
    func noContactAfterFailureOrCancellation() async throws {
        try await TestServer.run(.sqlite) { server in
            let failing = try await DeliveryScenario.ready(server)
            let (rider, taskId, _) = try await Self.accepted(failing)
            try await failing.arrive(taskId, rider: rider)
            let issue = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/issues", token: rider, json: ["type": "CUSTOMER_UNAVAILABLE"])
            #expect(issue.status == 201)
            let approved = try await server.send(
                .post, "/api/v1/orders/\(failing.orderId)/failure-approval", token: failing.dispatcher,
                json: ["reason": "no answer at the door"])
            #expect(approved.status == 200)
            let failed = try await failing.status(
                taskId, "FAILED", rider: rider, extra: ["reason": "CUSTOMER_UNAVAILABLE"])
            #expect(failed["status"] as? String == "FAILED")
            Self.expectNoContact(failed, "FAILED")

            let cancelling = try await DeliveryScenario.ready(server)
            let (second, secondTask, secondOffer) = try await Self.accepted(cancelling)
            let cancelled = try await server.send(
                .post, "/api/v1/orders/\(cancelling.orderId)/cancel", token: cancelling.dispatcher,
                json: ["reason": "customer moved"])
            #expect(cancelled.status == 200)
            let again = try await server.send(.post, "/api/v1/rider/offers/\(secondOffer)/accept", token: second)
            #expect(again["status"] as? String == "CANCELLED")
            Self.expectNoContact(again, "a repeated accept of a cancelled order")
            let tap = try await cancelling.status(secondTask, "ARRIVED_AT_STORE", rider: second)
            #expect(tap.code == "ORDER_CANCELLED")
            for text in Self.contact { #expect(!tap.text.contains(text)) }
        }
    }

    @Test("a rider's keyed proof or report, retried after a crash between its commit and its answer, gets no order")
    func replayAfterCrash() async throws {
        try await TestServer.run(.sqlite) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (rider, taskId, _) = try await Self.accepted(scenario)
            try await scenario.arrive(taskId, rider: rider)
            let form = Photos.multipart(photo: Photos.jpeg, fields: Photos.fields(server))
            let requests: [(path: String, json: [String: Any]?, form: Data?, status: Int)] = [
                ("/api/v1/rider/tasks/\(taskId)/issues", ["type": "CUSTOMER_UNAVAILABLE"], nil, 201),
                ("/api/v1/rider/tasks/\(taskId)/pod", nil, form.body, 200),
            ]
            for request in requests {
                let key = ["Idempotency-Key": UUID().lowercased]
                func send() async throws -> Reply {
                    try await server.send(
                        .post, request.path, token: rider, json: request.json, raw: request.form,
                        contentType: request.form == nil ? nil : form.contentType, headers: key)
                }
                #expect((200...201).contains(try await send().status))
                // What a process killed right after the commit leaves: the key marked with the order, no answer.
                try await server.database.query(
                    "UPDATE idempotency_keys SET status = 0, response_body = NULL, committed_order = ?",
                    [.text(scenario.orderId)])
                let retry = try await send()
                #expect(retry.status == request.status, "\(request.path): \(retry.text)")
                #expect(retry.headers[.init("Idempotent-Replayed")!] == "true")
                #expect(retry["orderId"] as? String == scenario.orderId)
                for text in Self.contact { #expect(!retry.text.contains(text), "\(request.path) shows \(text)") }
            }
            #expect(try await server.count("delivery_issues", "task_id = ?", [.text(taskId)]) == 1)
            #expect(try await server.count("proofs_of_delivery", "task_id = ?", [.text(taskId)]) == 1)
        }
    }

    @Test("RiderKit reads an ended task without a customer")
    func riderKitReadsEndedTask() throws {
        let json = """
            {"taskId": "t", "orderId": "o", "status": "DELIVERED", "allowedNext": [], "podType": "PHOTO",
             "vendor": {"name": "Café de Paris", "address": "Place du Casino", "location": {"lat": 43.7, "lon": 7.4}},
             "customer": null, "geofenceRadiusM": 500}
            """
        let task = try JSONDecoder().decode(RiderTask.self, from: Data(json.utf8))
        #expect(task.customer == nil)
        #expect(task.status == .delivered)
    }
}
