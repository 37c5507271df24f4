import Foundation
import LogisticsCore
import LogisticsServer
import Testing

@testable import TestSupport

/// Customers without the app: a text at each step of their delivery through Twilio (and WhatsApp's Cloud API),
/// receipts, STOP, outages, and the dispatcher's view of where each message went.
@Suite("Customer messages by SMS and WhatsApp", .timeLimit(.minutes(3)))
struct CustomerMessageTests {
    static let statusURL = "https://deliveries.example.com/api/v1/providers/twilio/status"
    static let inboundURL = "https://deliveries.example.com/api/v1/providers/twilio/inbound"

    /// Places an order for `phone` and makes it ready; `notify` and `locale` as the store sends them.
    static func order(
        _ server: TestServer, phone: String, podType: String = "OTP", notify: [String]? = ["sms"],
        locale: String? = nil, vendor: String = "Café de Paris"
    ) async throws -> DeliveryScenario {
        let dispatcher = try await server.token(.dispatcher)
        let customerId = UUID()
        var body = Fixtures.order(customerId: customerId, podType: podType)
        var customer = body["customer"] as! [String: Any]
        customer["phone"] = phone
        if let notify { customer["notify"] = notify }
        if let locale { customer["locale"] = locale }
        body["customer"] = customer
        var store = body["vendor"] as! [String: Any]
        store["name"] = vendor
        body["vendor"] = store
        let created = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: body)
        #expect(created.status == 201, "\(created.text)")
        let orderId = try #require(created["orderId"] as? String)
        #expect(try await server.send(.post, "/api/v1/orders/\(orderId)/ready", token: dispatcher).status == 200)
        return DeliveryScenario(
            server: server, dispatcher: dispatcher, orderId: orderId, customerId: customerId,
            customer: try await server.token(.customer, customerId))
    }

    /// A rider named `name`, online, offered the order and accepting it.
    static func assign(_ scenario: DeliveryScenario, name: String = "Ravi Kumar") async throws -> (String, String) {
        let server = scenario.server
        let id = UUID()
        let token = try await server.token(.rider, id, name: name)
        _ = try await server.send(.put, "/api/v1/rider/availability", token: token, json: ["status": "ONLINE"])
        let offers = try await scenario.offer(to: [id])
        let accepted = try await server.send(.post, "/api/v1/rider/offers/\(offers[id]!)/accept", token: token)
        #expect(accepted.status == 200, "\(accepted.text)")
        return (token, try #require(accepted["taskId"] as? String))
    }

    /// A photo order for `phone`, assigned to a rider who has picked it up: the rider's token and the task.
    static func pickedUp(_ server: TestServer, phone: String) async throws -> (DeliveryScenario, String, String) {
        let scenario = try await order(server, phone: phone, podType: "PHOTO")
        let (rider, taskId) = try await assign(scenario)
        for status in ["ARRIVED_AT_STORE", "PICKED_UP"] {
            #expect(try await scenario.status(taskId, status, rider: rider).status == 200)
        }
        return (scenario, rider, taskId)
    }

    static func notifications(_ scenario: DeliveryScenario) async throws -> [[String: Any]] {
        let list = try await scenario.server.send(
            .get, "/api/v1/orders/\(scenario.orderId)/notifications", token: scenario.dispatcher)
        #expect(list.status == 200, "\(list.text)")
        return (list["notifications"] as? [[String: Any]] ?? []).filter { $0["recipientRole"] as? String == "customer" }
    }

    /// Waits until the server has recorded that a provider took each of the order's customer messages.
    static func waitUntilSent(_ scenario: DeliveryScenario) async throws {
        let sent = try await eventually {
            try await notifications(scenario).allSatisfy { $0["sentAt"] != nil } ? true : nil
        }
        #expect(sent == true)
    }

    static func twilioCallback(
        _ server: TestServer, url: String = statusURL, _ fields: [(String, String)], signature: String? = nil
    ) async throws -> Reply {
        let signed = signature ?? TwilioSignature.sign(url: url, parameters: fields, authToken: FakeTwilio.authToken)
        let path = String(url.dropFirst("https://deliveries.example.com".count))
        return try await server.send(
            .post, path, raw: Data(FormEncodingForTests.encode(fields).utf8),
            contentType: "application/x-www-form-urlencoded", headers: ["X-Twilio-Signature": signed])
    }

    @Test(
        "one OTP delivery: five texts in order with the words, the link and the code before the door; receipts; a forged receipt changes nothing",
        arguments: StoreKind.available)
    func wholeDelivery(kind: StoreKind) async throws {
        try await SignInTests.withTwilio(kind) { twilio, server in
            let phone = "+919820011111"
            let scenario = try await Self.order(server, phone: phone)
            let (rider, taskId) = try await Self.assign(scenario)
            try await twilio.wait("the order's and the assignment's texts") {
                $0.messages.filter { $0.to == phone }.count == 2
            }
            // The link opens the customer's page (after delivery it shows the outcome: the tracking page's tests).
            let assignedText = twilio.messages(to: phone)[1].body
            let linked = try #require(
                assignedText.range(of: "https://deliveries.example.com").map { assignedText[$0.upperBound...] })
            #expect(try await server.send(.get, String(linked)).status == 200)
            try await scenario.arrive(taskId, rider: rider)
            try await twilio.wait("four texts") { state in state.messages.filter { $0.to == phone }.count == 4 }
            // The code is in the customer's hands before the rider asks for it at the door.
            let code = try #require(
                try await server.send(.get, "/api/v1/customer/orders/\(scenario.orderId)", token: scenario.customer)[
                    "deliveryOtp"] as? String)
            try await scenario.deliverWithCode(taskId, rider: rider)
            try await twilio.wait("five texts") { state in state.messages.filter { $0.to == phone }.count == 5 }
            let all = twilio.messages(to: phone).map(\.body)
            // The first, as the order is placed: it is received, with the link to follow it.
            #expect(all[0].hasPrefix("Rider Logistics: We have your Café de Paris order. Track it: "), "\(all[0])")
            let texts = Array(all.dropFirst())
            #expect(texts[0].hasPrefix("Rider Logistics: Ravi is bringing your Café de Paris order. Track it: "))
            #expect(
                texts[1].hasPrefix("Rider Logistics: On its way! Share code \(code) with your rider."), "\(texts[1])")
            #expect(texts[2] == "Rider Logistics: Your rider has arrived! Share code \(code) with them.")
            #expect(texts[3].contains("order was delivered at ") && texts[3].contains("Proof: "), "\(texts[3])")
            for text in all { #expect(GSM7.septets(text) <= 160, "one segment: \(text)") }
            // One link for the order, and it opens the customer's page.
            let links = Set(
                all.compactMap { text in
                    text.range(of: "https://deliveries.example.com/track/").map { String(text[$0.upperBound...]) }
                })
            #expect(links.count == 1)

            // The provider has the fifth text; the server records that it took it a moment later.
            var listed = try #require(
                try await eventually {
                    let list = try await Self.notifications(scenario)
                    return list.allSatisfy { $0["sentAt"] != nil } ? list : nil
                })
            #expect(
                listed.map { $0["textKey"] as? String } == [
                    NotificationKey.orderReceived, NotificationKey.riderAssigned, NotificationKey.pickedUp,
                    NotificationKey.riderArrived,
                    NotificationKey.delivered,
                ])
            #expect(listed.allSatisfy { $0["status"] as? String == "sent" && $0["sentAt"] != nil })
            let first = try #require((listed[0]["deliveries"] as? [[String: Any]])?.first)
            #expect(first["channel"] as? String == "sms" && (first["to"] as? String)?.hasSuffix("1111") == true)

            // Twilio's receipt, signed as Twilio signs: the first text is delivered.
            let sid = twilio.messages(to: phone)[0].sid
            let receipt = [("MessageSid", sid), ("MessageStatus", "delivered"), ("To", phone)]
            let forged = try await Self.twilioCallback(server, receipt, signature: "bm90IFR3aWxpbw==")
            #expect(forged.status == 403 && forged.text.contains("FORBIDDEN"))
            listed = try await Self.notifications(scenario)
            #expect(listed[0]["status"] as? String == "sent", "a forged receipt changed nothing")
            #expect(try await Self.twilioCallback(server, receipt).status == 204)
            listed = try await Self.notifications(scenario)
            #expect(listed[0]["status"] as? String == "delivered")
            // A late "sent" does not take "delivered" back; a receipt for a message nobody sent is ignored.
            _ = try await Self.twilioCallback(server, [("MessageSid", sid), ("MessageStatus", "sent")])
            #expect(try await Self.notifications(scenario)[0]["status"] as? String == "delivered")
            let unknown = try await Self.twilioCallback(
                server, [("MessageSid", "SMunknown"), ("MessageStatus", "sent")])
            #expect(unknown.status == 204)
        }
    }

    @Test("a receipt that beats Twilio's answer to the send is kept for the message", arguments: StoreKind.available)
    func receiptBeforeAnswer(kind: StoreKind) async throws {
        try await SignInTests.withTwilio(kind) { twilio, server in
            twilio.state.withLock {
                $0.beforeAnswer = { sid, to in
                    let early = try? await Self.twilioCallback(
                        server, [("MessageSid", sid), ("MessageStatus", "delivered"), ("To", to)])
                    #expect(early?.status == 204)
                }
            }
            let scenario = try await Self.order(server, phone: "+919820018181", podType: "PHOTO")
            _ = try await Self.assign(scenario)
            let delivered = try await eventually {
                try await Self.notifications(scenario).first?["status"] as? String == "delivered" ? true : nil
            }
            #expect(delivered == true)
            #expect(try await server.count("provider_receipts") == 0, "applied, not left behind")
        }
    }

    @Test("STOP silences the next order's texts for that phone until START", arguments: StoreKind.available)
    func stopAndStart(kind: StoreKind) async throws {
        try await SignInTests.withTwilio(kind) { twilio, server in
            let phone = "+919820022222"
            let before = try await Self.order(server, phone: phone, podType: "PHOTO")
            _ = try await Self.assign(before)
            try await twilio.wait("the first order's two texts") { $0.messages.filter { $0.to == phone }.count == 2 }

            let stop = [("MessageSid", "SMinbound1"), ("From", phone), ("To", FakeTwilio.from), ("Body", "Stop ")]
            let forged = try await Self.twilioCallback(server, url: Self.inboundURL, stop, signature: "AAAA")
            #expect(forged.status == 403)
            let answered = try await Self.twilioCallback(server, url: Self.inboundURL, stop)
            #expect(answered.status == 200 && answered.text.contains("<Response>"))

            let silenced = try await Self.order(server, phone: phone, podType: "PHOTO")
            _ = try await Self.assign(silenced)
            let listed = try await eventually {
                let list = try await Self.notifications(silenced)
                return list.first.map { $0["status"] as? String == "not sent" ? list : nil } ?? nil
            }
            #expect(listed?.first?["sentAt"] == nil)
            #expect(twilio.messages(to: phone).count == 2, "nothing after STOP")

            let start = [("MessageSid", "SMinbound2"), ("From", phone), ("To", FakeTwilio.from), ("Body", "START")]
            #expect(try await Self.twilioCallback(server, url: Self.inboundURL, start).status == 200)
            let resumed = try await Self.order(server, phone: phone, podType: "PHOTO")
            _ = try await Self.assign(resumed)
            try await twilio.wait("texts again after START") { $0.messages.filter { $0.to == phone }.count == 4 }
        }
    }

    @Test(
        "a Twilio outage retries, then dead-letters one order's texts without holding up another order's",
        arguments: StoreKind.available)
    func outage(kind: StoreKind) async throws {
        try await SignInTests.withTwilio(kind, configure: { $0.textMessages.retryBudgetSeconds = 60 }) {
            twilio, server in
            let down = "+919820033333"
            let fine = "+919820044444"
            twilio.script(
                down,
                Array(
                    repeating: FakeTwilio.Scripted(status: .serviceUnavailable, code: 20500, message: "Down"), count: 40
                ))
            let stuck = try await Self.order(server, phone: down, podType: "PHOTO")
            _ = try await Self.assign(stuck)
            let other = try await Self.order(server, phone: fine, podType: "PHOTO")
            _ = try await Self.assign(other)
            try await twilio.wait("the other order's text while the first is retried") {
                $0.messages.contains { $0.to == fine }
            }
            for _ in 0..<30 {
                try await Task.sleep(for: .milliseconds(100))
                server.clock.advance(by: 5)
            }
            let failed = try await eventually {
                try await Self.notifications(stuck).first?["status"] as? String == "failed" ? true : nil
            }
            #expect(failed == true)
            #expect((twilio.snapshot.attempts[down] ?? 0) >= 2)
            let delivery = try #require(
                (try await Self.notifications(stuck).first?["deliveries"] as? [[String: Any]])?.first)
            #expect((delivery["error"] as? String)?.contains("gave up after") == true)
        }
    }

    @Test("the customer's language, English for one the catalog lacks; a customer no channel reaches gets nothing")
    func languagesAndNoChannel() async throws {
        try await SignInTests.withTwilio(.sqlite) { twilio, server in
            let hindi = try await Self.order(server, phone: "+919820055555", podType: "PHOTO", locale: "hi-IN")
            _ = try await Self.assign(hindi)
            let klingon = try await Self.order(server, phone: "+919820066666", podType: "PHOTO", locale: "tlh")
            _ = try await Self.assign(klingon)
            try await twilio.wait("both customers' two texts") { state in
                state.messages.filter { $0.to == "+919820055555" }.count == 2
                    && state.messages.filter { $0.to == "+919820066666" }.count == 2
            }
            #expect(twilio.messages(to: "+919820055555")[0].body.contains("ऑर्डर हमें मिल गया है"))
            let hindiText = twilio.messages(to: "+919820055555")[1].body
            #expect(hindiText.contains("ऑर्डर ला रहे हैं"))
            // The link opens the page in the order's language, whatever the phone's browser asks for.
            let path = try #require(
                hindiText.range(of: "https://deliveries.example.com").map { String(hindiText[$0.upperBound...]) })
            let page = try await server.send(.get, path, headers: ["Accept-Language": "en-GB,en;q=0.9"])
            #expect(page.status == 200 && page.text.contains(#"lang="hi""#))
            #expect(twilio.messages(to: "+919820066666")[1].body.contains("is bringing your"))

            // Push only, and no device: nothing is sent, nothing fails, and the list says so.
            let unreachable = try await Self.order(server, phone: "+919820077777", podType: "PHOTO", notify: ["push"])
            _ = try await Self.assign(unreachable)
            let listed = try await eventually {
                let list = try await Self.notifications(unreachable)
                return list.first?["status"] as? String == "not sent" ? list : nil
            }
            #expect(listed?.first?["sentAt"] == nil)
            #expect((listed?.first?["deliveries"] as? [Any])?.isEmpty == true)
            #expect(twilio.messages(to: "+919820077777").isEmpty)

            // A phone a store typed with spaces is still reached; a national number is no E.164 number: the order
            // stands, no text is attempted, and the list says why nothing went.
            let spaced = try await Self.order(server, phone: "+91 98200 88888", podType: "PHOTO")
            _ = try await Self.assign(spaced)
            try await twilio.wait("the spaced number's text") { $0.messages.contains { $0.to == "+919820088888" } }
            let national = try await Self.order(server, phone: "022 2345 6789", podType: "PHOTO")
            _ = try await Self.assign(national)
            let notSent = try await eventually {
                try await Self.notifications(national).first?["status"] as? String == "not sent" ? true : nil
            }
            #expect(notSent == true)
            #expect(!twilio.snapshot.messages.contains { $0.to.hasSuffix("23456789") })
        }
    }

    @Test("'can't reach you' is texted only once the rider is at the door", arguments: StoreKind.available)
    func unreachableOnlyAtTheDoor(kind: StoreKind) async throws {
        try await SignInTests.withTwilio(kind) { twilio, server in
            let phone = "+919820017171"
            let (scenario, rider, taskId) = try await Self.pickedUp(server, phone: phone)
            let early = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/issues", token: rider, json: ["type": "CUSTOMER_UNAVAILABLE"])
            #expect(early.status == 201 && early["notified"] as? [String] == ["DISPATCHER"])
            #expect(try await scenario.status(taskId, "ARRIVED_AT_DESTINATION", rider: rider).status == 200)
            try await twilio.wait("received, assigned, picked up, arrived") {
                $0.messages.filter { $0.to == phone }.count == 4
            }
            #expect(!twilio.messages(to: phone).contains { $0.body.contains("can't reach you") })
            let atDoor = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/issues", token: rider, json: ["type": "CUSTOMER_UNAVAILABLE"])
            #expect(atDoor["notified"] as? [String] == ["DISPATCHER", "CUSTOMER"])
            try await twilio.wait("the text from the door") { $0.messages.filter { $0.to == phone }.count == 5 }
            #expect(
                twilio.messages(to: phone).last?.body
                    == "Rider Logistics: Your rider is at your door and can't reach you. Please answer your phone.")
        }
    }

    @Test("orders refuse channels and languages that are not ones")
    func badChannels() async throws {
        try await TestServer.run(.sqlite) { server in
            let dispatcher = try await server.token(.dispatcher)
            for (field, value) in [
                ("notify", ["fax"] as Any), ("notify", [] as [String]), ("notify", ["sms", "sms"]),
                ("locale", "en US!"), ("locale", ""),
            ] {
                var body = Fixtures.order()
                var customer = body["customer"] as! [String: Any]
                customer[field] = value
                body["customer"] = customer
                let before = try await server.count("orders")
                let refused = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: body)
                #expect(refused.status == 400 && refused.text.contains("VALIDATION_FAILED"), "\(field)=\(value)")
                #expect(try await server.count("orders") == before)
            }
        }
    }
}

/// The form encoding Twilio uses, for the tests' callbacks.
enum FormEncodingForTests {
    static func encode(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        return fields.map {
            "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }.joined(separator: "&")
    }
}
