import Foundation
import LogisticsCore
import LogisticsStore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// What a dispatcher types as a reason is written for colleagues: customers are told why in fixed, translated words.
@Suite("Customers never get a dispatcher's own words", .timeLimit(.minutes(3)))
struct CustomerReasonTests {
    static let internalNote = "Customer was rude on the phone, do not serve again"

    static func sendBack(_ scenario: DeliveryScenario, _ body: [String: String]) async throws -> Reply {
        try await scenario.server.send(
            .post, "/api/v1/orders/\(scenario.orderId)/return-to-store", token: scenario.dispatcher, json: body)
    }

    @Test(
        "a return to the store and a cancellation text the customer fixed words, never the typed reason",
        arguments: StoreKind.available)
    func textsKeepTheReasonInside(kind: StoreKind) async throws {
        try await SignInTests.withTwilio(kind) { twilio, server in
            let phone = "+919820017272"
            let (scenario, _, _) = try await CustomerMessageTests.pickedUp(server, phone: phone)
            let back = try await Self.sendBack(scenario, ["reason": Self.internalNote])
            #expect(back.status == 200, "\(back.text)")
            try await twilio.wait("received, assigned, picked up, going back") {
                $0.messages.filter { $0.to == phone }.count == 4
            }
            let words = "Your Café de Paris order is going back to the store: there was a problem on the way"
            #expect(twilio.messages(to: phone).last?.body == "Rider Logistics: " + words)
            // A kind the customer is told in its words; an unknown kind changes nothing.
            let (third, _, _) = try await CustomerMessageTests.pickedUp(server, phone: "+919820017273")
            let unknown = try await Self.sendBack(third, ["reason": "Refused at the door", "reasonKind": "MOON_PHASE"])
            #expect(unknown.status == 400 && unknown.code == "VALIDATION_FAILED", "\(unknown.text)")
            let asked = try await Self.sendBack(
                third, ["reason": "Refused at the door", "reasonKind": "CUSTOMER_REQUEST"])
            #expect(asked.status == 200, "\(asked.text)")
            try await twilio.wait("the third customer's texts") {
                $0.messages.filter { $0.to == "+919820017273" }.count == 4
            }
            #expect(
                twilio.messages(to: "+919820017273").last?.body
                    == "Rider Logistics: Your Café de Paris order is going back to the store: you asked us to")

            // The rider is told the dispatcher's words; the log keeps them.
            let events = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/events", token: scenario.dispatcher)
            #expect(events.text.contains("do not serve again"))

            let second = try await CustomerMessageTests.order(server, phone: phone, podType: "PHOTO")
            _ = try await CustomerMessageTests.assign(second)
            let cancelled = try await server.send(
                .post, "/api/v1/orders/\(second.orderId)/cancel", token: second.dispatcher,
                json: ["reason": Self.internalNote])
            #expect(cancelled.status == 200, "\(cancelled.text)")
            try await twilio.wait("the second order's assignment and cancellation") {
                $0.messages.filter { $0.to == phone }.count == 7
            }
            #expect(twilio.messages(to: phone).last?.body.contains("was cancelled by our team") == true)
            #expect(!twilio.messages(to: phone).contains { $0.body.contains("rude") || $0.body.contains("serve") })
            // The dispatcher's list of the customer's messages shows what was sent, not the note.
            let listed = try await CustomerMessageTests.notifications(scenario)
            #expect(!listed.isEmpty && !"\(listed)".contains("rude"))
        }
    }

    @Test("a customer's push and stored copy say why in catalog words; a rider's keeps the dispatcher's")
    func pushWords() {
        let arguments = ["vendor": "Café de Paris", "reference": "R-1", "reason": Self.internalNote]
        let customer = QueuedNotification.catalog(
            NotificationKey.orderReturning, to: UUID(), role: .customer, arguments: arguments)
        #expect(customer.body == "Your order is going back to Café de Paris: there was a problem on the way")
        let rider = QueuedNotification.catalog(
            NotificationKey.returnToStore, to: UUID(), role: .rider, arguments: arguments)
        #expect(rider.body.contains(Self.internalNote))
        #expect(CustomerTexts.reason("ADDRESS_NOT_FOUND", locale: "hi-IN") == "हमें आपका पता नहीं मिला")
        #expect(CustomerTexts.reason("anything typed", locale: "mr") == "वाटेत अडचण आली")
        #expect(CustomerTexts.reason("anything typed", locale: "fr") == "there was a problem on the way")
    }
}
