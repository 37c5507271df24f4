import Foundation
import LogisticsCore
import LogisticsServer
import Testing

@testable import TestSupport

/// Customers' messages on WhatsApp: Meta's Cloud API and its webhooks, Twilio's WhatsApp sender, and the fallback
/// to SMS.
@Suite("Customer messages on WhatsApp", .timeLimit(.minutes(3)))
struct CustomerWhatsAppTests {
    typealias Messages = CustomerMessageTests

    @Test(
        "WhatsApp templates through the Cloud API; signed webhooks; a rejected template or a failed message falls back to SMS once",
        arguments: StoreKind.available)
    func whatsApp(kind: StoreKind) async throws {
        let whatsApp = try FakeWhatsApp(approved: [
            "order_received/en": 2, "rider_assigned/en": 3, "order_picked_up/en": 2, "rider_arrived/en": 0,
            "order_delivered/en": 3,
        ])
        try await whatsApp.run { port in
            let settings = try whatsApp.settings(port: port)
            try await SignInTests.withTwilio(kind, configure: settings) { twilio, server in
                let phone = "+919820012121"
                let scenario = try await Messages.order(
                    server, phone: phone, podType: "PHOTO", notify: ["whatsapp", "sms"])
                _ = try await Messages.assign(scenario)
                try await whatsApp.wait("the order's and the assignment's templates") { _ in
                    whatsApp.messages(to: phone).count == 2
                }
                let received = try #require(whatsApp.messages(to: phone).first)
                #expect(received.template == "order_received" && received.parameters.first == "Café de Paris")
                let sent = try #require(whatsApp.messages(to: phone).last)
                #expect(sent.template == "rider_assigned" && sent.language == "en")
                #expect(
                    sent.parameters.count == 3 && sent.parameters[0] == "Ravi" && sent.parameters[1] == "Café de Paris")
                #expect(sent.parameters[2].hasPrefix("https://deliveries.example.com/track/t3"))

                // Meta's handshake, and its signed statuses.
                try await Messages.waitUntilSent(scenario)
                let challenge = try await server.send(
                    .get,
                    "/api/v1/providers/whatsapp?hub.mode=subscribe&hub.verify_token=\(FakeWhatsApp.verifyToken)&hub.challenge=1158201444"
                )
                #expect(challenge.status == 200 && challenge.text == "1158201444")
                let wrong = try await server.send(
                    .get, "/api/v1/providers/whatsapp?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1")
                #expect(wrong.status == 403)
                let (delivered, signature) = FakeWhatsApp.signedStatus(sent.id, "read")
                let forged = try await server.send(
                    .post, "/api/v1/providers/whatsapp", raw: delivered, contentType: "application/json",
                    headers: ["X-Hub-Signature-256": "sha256=" + String(repeating: "0", count: 64)])
                #expect(forged.status == 403)
                // The assignment is the order's second message.
                #expect(try await Messages.notifications(scenario)[1]["status"] as? String == "sent")
                let accepted = try await server.send(
                    .post, "/api/v1/providers/whatsapp", raw: delivered, contentType: "application/json",
                    headers: ["X-Hub-Signature-256": signature])
                #expect(accepted.status == 200)
                #expect(try await Messages.notifications(scenario)[1]["status"] as? String == "delivered")
                let (unknown, unknownSignature) = FakeWhatsApp.signedStatus("wamid.nobody", "delivered")
                let ignored = try await server.send(
                    .post, "/api/v1/providers/whatsapp", raw: unknown, contentType: "application/json",
                    headers: ["X-Hub-Signature-256": unknownSignature])
                #expect(ignored.status == 200)

                // Marathi has no approved template: Meta refuses it (132001), and the text goes by SMS instead.
                let marathi = "+919820013131"
                let refused = try await Messages.order(
                    server, phone: marathi, podType: "PHOTO", notify: ["whatsapp", "sms"], locale: "mr")
                _ = try await Messages.assign(refused)
                try await twilio.wait("the fallback texts") { $0.messages.filter { $0.to == marathi }.count == 2 }
                #expect(twilio.messages(to: marathi)[0].body.contains("ऑर्डर आम्हाला मिळाली"))
                #expect(twilio.messages(to: marathi)[1].body.contains("ऑर्डर आणत आहेत"))
                let copies = try #require(
                    try await Messages.notifications(refused)[0]["deliveries"] as? [[String: Any]])
                #expect(copies.map { $0["channel"] as? String } == ["whatsapp", "sms"])
                #expect((copies[0]["error"] as? String)?.contains("132001") == true)
                #expect(copies[1]["fallbackOf"] as? Int == copies[0]["id"] as? Int)

                // A template Meta took and later could not deliver also falls back, once.
                let lost = "+919820014141"
                let undelivered = try await Messages.order(
                    server, phone: lost, podType: "PHOTO", notify: ["whatsapp", "sms"])
                _ = try await Messages.assign(undelivered)
                try await whatsApp.wait("the third order's template") { _ in !whatsApp.messages(to: lost).isEmpty }
                let lostId = try #require(whatsApp.messages(to: lost).first?.id)
                let (failed, failedSignature) = FakeWhatsApp.signedStatus(lostId, "failed", errorCode: 131026)
                for _ in 0..<2 {
                    _ = try await server.send(
                        .post, "/api/v1/providers/whatsapp", raw: failed, contentType: "application/json",
                        headers: ["X-Hub-Signature-256": failedSignature])
                }
                try await twilio.wait("the third order's fallback text") { $0.messages.contains { $0.to == lost } }
                try await Task.sleep(for: .milliseconds(600))
                #expect(twilio.messages(to: lost).count == 1)
                #expect(twilio.messages(to: phone).isEmpty, "a delivered message falls back to nothing")

                // STOP on WhatsApp stops texts to the phone on both channels.
                let (stop, stopSignature) = FakeWhatsApp.signedIncoming(from: phone, text: "STOP")
                _ = try await server.send(
                    .post, "/api/v1/providers/whatsapp", raw: stop, contentType: "application/json",
                    headers: ["X-Hub-Signature-256": stopSignature])
                let after = try await Messages.order(
                    server, phone: phone, podType: "PHOTO", notify: ["whatsapp", "sms"])
                _ = try await Messages.assign(after)
                let silent = try await eventually {
                    try await Messages.notifications(after).first?["status"] as? String == "not sent" ? true : nil
                }
                #expect(silent == true)
                #expect(whatsApp.messages(to: phone).count == 2)
                #expect(whatsApp.snapshot.violations == [], "requests Meta would refuse")
            }
        }
    }

    @Test("WhatsApp through Twilio's sender; a cancelled order's text says who cancelled, in customer words")
    func twilioWhatsAppAndCancel() async throws {
        try await SignInTests.withTwilio(
            .sqlite,
            configure: {
                $0.customerMessages.whatsAppProvider = .twilio
                $0.customerMessages.twilioWhatsAppFrom = FakeTwilio.from
            }
        ) { twilio, server in
            let phone = "+919820015151"
            let scenario = try await Messages.order(server, phone: phone, podType: "PHOTO", notify: ["whatsapp"])
            _ = try await Messages.assign(scenario)
            try await twilio.wait("the WhatsApp messages") {
                $0.messages.filter { $0.to == "whatsapp:" + phone }.count == 2
            }
            let sent = try #require(twilio.messages(to: "whatsapp:" + phone).last)
            #expect(sent.from == "whatsapp:" + FakeTwilio.from && sent.body.contains("Ravi is bringing"))
            // Twilio reports on it through the same status callback, from the `whatsapp:` address (once the server
            // has recorded the message's SID, a moment after Twilio answered).
            try await Messages.waitUntilSent(scenario)
            let receipt = [("MessageSid", sent.sid), ("MessageStatus", "read"), ("To", "whatsapp:" + phone)]
            #expect(try await Messages.twilioCallback(server, receipt).status == 204)
            #expect(try await Messages.notifications(scenario)[1]["status"] as? String == "delivered")

            let cancelled = try await Messages.order(server, phone: "+919820016161", podType: "PHOTO")
            let reply = try await server.send(
                .post, "/api/v1/orders/\(cancelled.orderId)/cancel", token: cancelled.dispatcher,
                json: ["reason": "internal: duplicate from the POS"])
            #expect(reply.status == 200, "\(reply.text)")
            try await twilio.wait("the order's text and the cancellation") {
                $0.messages.filter { $0.to == "+919820016161" }.count == 2
            }
            let text = try #require(twilio.messages(to: "+919820016161").last?.body)
            #expect(text == "Rider Logistics: Your Café de Paris order was cancelled by our team.", "\(text)")
        }
    }
}
