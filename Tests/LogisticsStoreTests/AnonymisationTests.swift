import Foundation
import LogisticsCore
import LogisticsStore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// Ended orders lose their customer's personal data after the retention period; what the event log and the
/// accounts need stays.
@Suite("Anonymising ended orders", .timeLimit(.minutes(3)))
struct AnonymisationTests {
    static let day: TimeInterval = 24 * 3600

    @Test(
        "90 days after the end: name, phone, address, notes, issue notes and rating comments go; open and recent orders keep theirs",
        arguments: StoreKind.available)
    func anonymised(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            // Delivered today, after the rider reported an issue with a note.
            let delivered = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await delivered.assigned()
            try await delivered.arrive(taskId, rider: rider)
            let issue = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/issues", token: rider,
                json: ["type": "CUSTOMER_UNAVAILABLE", "note": "Mrs Shah's neighbour at flat 3 took it"])
            #expect(issue.status == 201)
            try await Self.deliver(delivered, taskId: taskId, rider: rider)
            _ = try await server.repository.rateDelivery(
                orderId: UUID(uuidString: delivered.orderId)!, stars: 4, comment: "Mrs Shah's neighbour was kind",
                now: server.clock.now())
            let eventsBefore = try await server.repository.events(orderId: UUID(uuidString: delivered.orderId)!)
            #expect(!eventsBefore.contains { "\($0.details)".contains("neighbour") }, "no issue note in the event log")

            // Cancelled two days later; and one still open.
            server.clock.advance(by: 2 * Self.day)
            let cancelled = try await DeliveryScenario.ready(server)
            #expect(
                try await server.send(
                    .post, "/api/v1/orders/\(cancelled.orderId)/cancel", token: cancelled.dispatcher,
                    json: ["reason": "closed"]
                ).status == 200)
            let open = try await DeliveryScenario.ready(server)

            // 91 days after the delivery, 89 after the cancellation.
            let now = server.clock.now().addingTimeInterval(89 * Self.day)
            let pruned = try await server.repository.prune(RetentionPolicy(), now: now, batch: 1)
            #expect(pruned.anonymisedOrders == 1)

            let gone = try await Self.order(server, delivered)
            #expect(gone.name == SQLLogisticsRepository.anonymisedName && gone.phone == "" && gone.address == "")
            #expect(gone.notes == nil)
            #expect(gone.status == "DELIVERED")
            #expect(try await server.count("delivery_issues", "note IS NOT NULL") == 0)
            #expect(try await server.count("delivery_issues") == 1)
            // The stars stay for the rider's average; the customer's words go.
            #expect(try await server.count("delivery_ratings", "comment IS NULL AND stars = 4") == 1)
            #expect(
                try await server.count(
                    "customers", "id = ? AND name IS NULL AND phone IS NULL", [.uuid(delivered.customerId)])
                    == 1)
            let eventsAfter = try await server.repository.events(orderId: UUID(uuidString: delivered.orderId)!)
            #expect(eventsAfter.map(\.type) == eventsBefore.map(\.type))
            for kept in [cancelled, open] {
                let order = try await Self.order(server, kept)
                #expect(order.name == "Priya Shah" && order.phone == "+377 93 15 00 01" && order.notes == "Ring twice")
            }

            // A second pass finds nothing more; past 90 days the cancelled one goes too, never the open one.
            #expect(try await server.repository.prune(RetentionPolicy(), now: now, batch: 1).anonymisedOrders == 0)
            let later = try await server.repository.prune(
                RetentionPolicy(), now: now.addingTimeInterval(2 * Self.day), batch: 1)
            #expect(later.anonymisedOrders == 1)
            #expect(try await Self.order(server, open).name == "Priya Shah")
        }
    }

    static func deliver(_ scenario: DeliveryScenario, taskId: String, rider: String) async throws {
        let form = Photos.multipart(photo: Photos.jpeg, fields: Photos.fields(scenario.server))
        let photo = try await scenario.server.send(
            .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: form.body, contentType: form.contentType)
        #expect(photo.status == 201)
        #expect(try await scenario.status(taskId, "DELIVERED", rider: rider).status == 200)
    }

    static func order(_ server: TestServer, _ scenario: DeliveryScenario) async throws
        -> (name: String?, phone: String?, address: String?, notes: String?, status: String?)
    {
        let reply = try await server.send(
            .get, "/api/v1/orders/\(scenario.orderId)", token: try await server.token(.dispatcher))
        let customer = reply["customer"] as? [String: Any]
        return (
            customer?["name"] as? String, customer?["phone"] as? String, customer?["address"] as? String,
            reply["notes"] as? String, reply["status"] as? String
        )
    }

    @Test("LOGISTICS_RETAIN_PERSONAL_DATA_DAYS: 90 by default, 1 to 3650")
    func setting() throws {
        #expect(try ServerConfiguration.fromEnvironment([:]).retention.personalDataDays == 90)
        #expect(
            try ServerConfiguration.fromEnvironment(["LOGISTICS_RETAIN_PERSONAL_DATA_DAYS": "30"])
                .retention.personalDataDays == 30)
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.fromEnvironment(["LOGISTICS_RETAIN_PERSONAL_DATA_DAYS": "0"])
        }
    }
}
