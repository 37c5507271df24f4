import Foundation
import LogisticsCore
import Testing

@Suite("What a rider's trail keeps")
struct RiderTrailTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func fix(_ seconds: Double, lat: Double = 43.73, accuracyM: Double = 5) -> LocationFix {
        LocationFix(lat: lat, lon: 7.42, accuracyM: accuracyM, recordedAt: start.addingTimeInterval(seconds))
    }

    @Test("standing still: one fix per 10 s; moving 30 m: every fix")
    func thinning() {
        var trail = RiderTrail()
        let still = trail.take((0..<25).map { fix(Double($0)) })
        #expect(still.fresh.count == 25)
        #expect(still.kept.map(\.recordedAt) == [0, 10, 20].map { start.addingTimeInterval($0) })
        let moving = trail.take((0..<4).map { fix(30 + Double($0), lat: 43.74 + Double($0) * 0.0003) })
        #expect(moving.kept.count == 4)
    }

    @Test("duplicates are counted, late fixes are kept but do not move the newest position back")
    func duplicatesAndLateFixes() {
        var trail = RiderTrail()
        let batch = [fix(0), fix(20, lat: 43.74)]
        _ = trail.take(batch)
        let again = trail.take(batch + [fix(20, lat: 43.74)])
        #expect(again.fresh.isEmpty)
        #expect(again.duplicates == 3)
        #expect(!again.movedForward)
        let late = trail.take([fix(5, lat: 43.70)])
        #expect(late.kept.count == 1)
        #expect(!late.movedForward)
        #expect(trail.newest?.lat == 43.74)
    }

    @Test("a fix worse than 100 m moves the newest position, not the one customers see")
    func accuracy() {
        var trail = RiderTrail()
        _ = trail.take([fix(0, lat: 43.73)])
        let vague = trail.take([fix(10, lat: 43.75, accuracyM: 400)])
        #expect(vague.movedForward)
        #expect(trail.newest?.lat == 43.75)
        #expect(trail.newestShowable?.lat == 43.73)
    }

    @Test("fixes whose write failed are forgotten, so the retry is not a duplicate")
    func forgetting() {
        var trail = RiderTrail()
        let batch = [fix(0), fix(30, lat: 43.74)]
        _ = trail.take(batch)
        trail.forget(batch)
        #expect(trail.take(batch).fresh.count == 2)
    }

    @Test("tracking links name their stored link; anything altered is refused; old order links still read")
    func trackingLinks() {
        let links = TrackingLinks(serverSecret: Array("server-secret".utf8))
        let link = UUID()
        let token = links.token(linkId: link)
        #expect(links.reference(fromToken: token) == .link(link))
        #expect(links.reference(fromToken: String(token.dropLast())) == nil)
        // A 32-byte signature ends in a character with two unused bits: every other spelling of it is refused.
        let last = token.last!
        for other in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" where other != last {
            #expect(links.reference(fromToken: String(token.dropLast()) + String(other)) == nil, "\(other)")
        }
        #expect(links.reference(fromToken: token.replacingOccurrences(of: "trk2_", with: "trk2_0")) == nil)
        #expect(links.reference(fromToken: token.replacingOccurrences(of: "trk2_", with: "trk_")) == nil)
        #expect(TrackingLinks(serverSecret: Array("other".utf8)).reference(fromToken: token) == nil)
        #expect(links.reference(fromToken: "eyJhbGciOiJIUzI1NiJ9.e30.sig") == nil)
        let order = UUID()
        #expect(links.reference(fromToken: links.legacyToken(orderId: order)) == .legacyOrder(order))
    }
}
