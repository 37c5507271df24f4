import Foundation
import LogisticsCore
import Testing

@Suite("Notification texts and retry timing")
struct NotificationRulesTests {
    @Test("texts come in the device's language, fall back to English, and fill their placeholders")
    func catalog() throws {
        #expect(
            NotificationCatalog.text(NotificationKey.riderArrived, locale: "en")?.title == "Your rider has arrived!")
        #expect(NotificationCatalog.text(NotificationKey.riderArrived, locale: "hi-IN")?.body == "आपका राइडर पहुँच गया है!")
        #expect(NotificationCatalog.text(NotificationKey.riderArrived, locale: "mr_IN")?.body == "तुमचा रायडर पोहोचला आहे!")
        #expect(
            NotificationCatalog.text(NotificationKey.riderArrived, locale: "fr")?.title == "Your rider has arrived!")
        #expect(NotificationCatalog.text(NotificationKey.riderArrived, locale: nil)?.title == "Your rider has arrived!")
        // Rider texts are not translated yet: English is sent.
        let offer = try #require(
            NotificationCatalog.text(
                NotificationKey.newOffer, locale: "hi", arguments: ["vendor": "Chai Point", "seconds": "45"]))
        #expect(offer.body == "Pickup at Chai Point. Accept within 45 seconds.")
        #expect(NotificationCatalog.text("no.such.key", locale: "en") == nil)
        let queued = QueuedNotification.catalog(NotificationKey.delivered, to: UUID(), role: .customer)
        #expect(queued.title == "Delivered")
        #expect(queued.textKey == NotificationKey.delivered)
    }

    @Test("every translation has the English entry's placeholders")
    func placeholders() throws {
        for locale in NotificationCatalog.locales where locale != "en" {
            for key in [
                NotificationKey.riderAssigned, NotificationKey.pickedUp, NotificationKey.riderArrived,
                NotificationKey.delivered, NotificationKey.newOffer,
            ] {
                let english = try #require(NotificationCatalog.text(key, locale: "en"))
                let translated = try #require(NotificationCatalog.text(key, locale: locale))
                let marks = { (text: String) in text.split(separator: "{").dropFirst().map { $0.prefix { $0 != "}" } } }
                #expect(Set(marks(english.body)) == Set(marks(translated.body)), "\(locale) \(key)")
            }
        }
    }

    @Test("backoff doubles up to its cap, never undercuts Retry-After, and stops at the budget")
    func backoff() {
        let policy = RetryPolicy(base: 5, cap: 3600, budget: 86_400)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let highest: (ClosedRange<Double>) -> Double = { $0.upperBound }
        let waits = (1...14).map {
            policy.next(afterAttempt: $0, retryAfter: nil, since: start, now: start, random: highest)!
                .timeIntervalSince(start)
        }
        #expect(waits.prefix(5) == [5, 10, 20, 40, 80])
        #expect(waits.last == 3600)
        let jittered = policy.next(afterAttempt: 3, retryAfter: nil, since: start, now: start)!.timeIntervalSince(start)
        #expect(jittered >= 0 && jittered <= 20)
        let throttled = policy.next(
            afterAttempt: 1, retryAfter: 120, since: start, now: start, random: { $0.lowerBound })!
        #expect(throttled.timeIntervalSince(start) == 120)
        #expect(
            policy.next(
                afterAttempt: 2, retryAfter: nil, since: start, now: start.addingTimeInterval(86_399), random: highest)
                == nil)
    }

    @Test("webhook signatures are HMAC-SHA256 over id.timestamp.body, base64, prefixed v1")
    func signature() {
        let signature = WebhookSignature.sign(
            secret: "whsec", id: "evt", timestamp: 1_700_000_000, body: Array("{}".utf8))
        #expect(signature.hasPrefix("v1,"))
        #expect(Data(base64Encoded: String(signature.dropFirst(3)))?.count == 32)
        #expect(
            signature
                != WebhookSignature.sign(secret: "whsec", id: "evt", timestamp: 1_700_000_001, body: Array("{}".utf8)))
    }
}
