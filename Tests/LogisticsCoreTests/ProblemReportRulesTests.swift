import Foundation
import Testing

@testable import LogisticsCore

@Suite("Problem reports, reassign reasons and position freshness: who is told what, and when")
struct ProblemReportRulesTests {
    @Test("every kind but UNSAFE tells the customer, in words every language has; 'can't reach you' only at the door")
    func customerNotices() {
        for kind in DeliveryIssueType.allCases {
            let atDoor = kind.customerNotice(at: .arrivedAtDestination)
            #expect((atDoor == nil) == (kind == .unsafe), "\(kind)")
            guard let key = atDoor else { continue }
            for language in ["en", "hi", "mr"] {
                #expect(NotificationCatalog.textMessages[language]?[key] != nil, "\(language) text for \(key)")
                #expect(NotificationCatalog.tables[language]?[key] != nil, "\(language) push for \(key)")
                #expect(CustomerTexts.phrase("reason.\(kind.rawValue)", locale: language) != nil, "\(language) \(kind)")
            }
            #expect(CustomerTexts.templateParameters[key] != nil, "\(key) has its WhatsApp parameters")
        }
        #expect(DeliveryIssueType.customerUnavailable.customerNotice(at: .pickedUp) == nil)
        #expect(DeliveryIssueType.storeClosed.customerNotice(at: .accepted) == NotificationKey.storeClosed)
    }

    @Test("the app offers the store's problems before pickup and the customer's after it")
    func offeredWhen() {
        #expect(DeliveryIssueType.storeClosed.fits(.accepted) && DeliveryIssueType.orderNotReady.fits(.arrivedAtStore))
        #expect(!DeliveryIssueType.storeClosed.fits(.pickedUp))
        #expect(!DeliveryIssueType.customerUnavailable.fits(.accepted))
        #expect(DeliveryIssueType.wrongAddress.fits(.arrivedAtDestination))
        for status in [TaskStatus.accepted, .pickedUp, .returningToStore] {
            #expect(DeliveryIssueType.vehicleTrouble.fits(status) && DeliveryIssueType.unsafe.fits(status))
        }
    }

    @Test("each reassign reason has the rider's words in every language, without the dispatcher's free text")
    func reassignWords() throws {
        for reason in ReassignReason.allCases {
            for language in ["en", "hi", "mr"] {
                let words = NotificationCatalog.text(
                    reason.notificationKey, locale: language, arguments: ["reference": "ORD-7"])
                let text = try #require(words, "\(language) \(reason)")
                #expect(text.body.contains("ORD-7"))
                #expect(!text.body.contains("{"))
            }
        }
    }

    @Test("a position is fresh for 90 s, three of the apps' 30-s heartbeats; none before the first fix")
    func freshness() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(RiderPositionFreshness.of(lastFixAt: nil, now: now) == .none)
        #expect(RiderPositionFreshness.of(lastFixAt: now.addingTimeInterval(-61), now: now) == .fresh)
        #expect(RiderPositionFreshness.of(lastFixAt: now.addingTimeInterval(-90), now: now) == .fresh)
        #expect(RiderPositionFreshness.of(lastFixAt: now.addingTimeInterval(-91), now: now) == .stale)
        #expect(RiderPositionFreshness.staleAfterSeconds >= 3 * RiderPositionFreshness.heartbeatSeconds)
    }
}
