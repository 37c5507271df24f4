import Foundation
import Testing

@testable import LogisticsCore

@Suite("Customer texts: words, one SMS segment, short links, opt-out words, channels")
struct CustomerTextsTests {
    static let link =
        "https://deliveries.example.com/track/t3" + String(repeating: "A", count: 22) + "."
        + String(repeating: "b", count: 16)

    @Test("every English text fits one GSM-7 segment with a link, however long the names")
    func oneSegment() {
        let long = String(repeating: "Pâtisserie Ëxtraordinaire du Rocher ", count: 4)
        for key in CustomerTexts.templateParameters.keys {
            let text = CustomerTexts.message(
                key, locale: "en",
                arguments: [
                    "sender": "Rider Logistics", "rider": long, "vendor": long, "link": Self.link, "code": "0421",
                    "time": "14:05", "reason": "we could not reach you", "by": "by the store",
                ])
            let body = try! #require(text, "\(key)")
            #expect(GSM7.isGSM7(body), "\(body)")
            #expect(GSM7.septets(body) <= 160, "\(body.count): \(body)")
            if CustomerTexts.templateParameters[key]!.contains("link") { #expect(body.hasSuffix(Self.link)) }
            #expect(body.hasPrefix("Rider Logistics: "), "says who it is from")
            #expect(!body.contains("{"), "no placeholder left: \(body)")
        }
    }

    @Test("each language's texts name only the parameters their WhatsApp templates take")
    func placeholders() {
        for (language, table) in NotificationCatalog.textMessages {
            for (key, text) in table where !key.hasPrefix("reason.") && !key.hasPrefix("by.") && key != "yourRider" {
                let parameters = try! #require(CustomerTexts.templateParameters[key], "\(language) \(key)")
                let named = text.matches(of: /\{([a-z]+)\}/).map { String($0.1) }.filter { $0 != "sender" }
                #expect(Set(named) == Set(parameters), "\(language) \(key)")
            }
        }
    }

    @Test("a locale the catalog lacks is English; hi-IN is Hindi")
    func languages() {
        #expect(CustomerTexts.language("tlh") == "en")
        #expect(CustomerTexts.language(nil) == "en")
        #expect(CustomerTexts.language("hi-IN") == "hi")
        #expect(CustomerTexts.language("mr_IN") == "mr")
        let text = CustomerTexts.message(
            NotificationKey.riderArrived, locale: "xx", arguments: ["sender": "Rider Logistics"])
        #expect(text == "Rider Logistics: Your rider has arrived!")
    }

    @Test("short tracking tokens open their link and nothing else")
    func shortTokens() {
        let links = TrackingLinks(serverSecret: Array("a server secret of enough length".utf8))
        let id = UUID()
        let token = links.shortToken(linkId: id)
        #expect(token.count <= 41)
        #expect(links.reference(fromToken: token) == .link(id))
        var forged = Array(token)
        forged[forged.count - 2] = forged[forged.count - 2] == "A" ? "B" : "A"
        #expect(links.reference(fromToken: String(forged)) == nil)
        #expect(links.reference(fromToken: String(token.dropLast())) == nil)
        let other = TrackingLinks(serverSecret: Array("another server's secret, as long".utf8))
        #expect(other.reference(fromToken: token) == nil)
    }

    @Test("STOP and its synonyms stop, START resumes, anything else is a message")
    func optOutWords() {
        for word in ["STOP", "stop", " Stop. ", "UNSUBSCRIBE", "stopall", "Cancel"] {
            #expect(OptOutKeyword.parse(word) == .stop, "\(word)")
        }
        for word in ["START", "unstop", "Yes"] { #expect(OptOutKeyword.parse(word) == .start, "\(word)") }
        for word in ["please stop by later", "where is my order?", ""] { #expect(OptOutKeyword.parse(word) == nil) }
    }

    @Test("a message takes the first channel that reaches the customer, and a failed text the next text channel")
    func routes() {
        let both: Set<NotificationChannel> = [.sms, .whatsapp, .fcm]
        var route = CustomerRoute(
            preferred: [.push, .whatsapp, .sms], hasDevice: false, textablePhone: "+919820012345", optedOut: false,
            enabled: both)
        #expect(route.first == .whatsapp)
        #expect(route.fallback(after: .whatsapp) == .sms)
        #expect(route.fallback(after: .sms) == nil)
        route.hasDevice = true
        #expect(route.first == .push)
        route.hasDevice = false
        route.optedOut = true
        #expect(route.first == nil)
        route.optedOut = false
        route.textablePhone = nil
        #expect(route.first == nil)
        route = CustomerRoute(
            preferred: [.whatsapp, .sms], hasDevice: false, textablePhone: "+919820012345", optedOut: false,
            enabled: [.sms])
        #expect(route.first == .sms, "no WhatsApp provider: the next channel")
        #expect(CustomerChannel.list("sms, WhatsApp") == [.sms, .whatsapp])
        #expect(CustomerChannel.list("sms,fax") == nil)
        #expect(PhoneNumber.textable("+91 98200-12345") == "+919820012345")
        #expect(PhoneNumber.textable("98200 12345") == nil)
    }
}
