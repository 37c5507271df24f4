import Foundation
import Testing

@testable import LogisticsCore

@Suite("RFC 3339 times")
struct RFC3339Tests {
    @Test("the hand-written printer and parser agree with Foundation on 10,000 random instants")
    func agreesWithFoundation() {
        var generator = SystemRandomNumberGenerator()
        let utc = Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!)
        // The earlier Foundation-based printer: whole seconds from Foundation, milliseconds from the same rounding.
        func reference(_ millis: Int64) -> String {
            let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
            let whole = Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(utc)
            return String(whole.dropLast()) + String(format: ".%03lldZ", millis - seconds * 1000)
        }
        for _ in 0..<10_000 {
            let millis = Int64.random(in: -2_000_000_000_000...4_000_000_000_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(millis) / 1000)
            let text = RFC3339.string(from: date)
            #expect(text == reference(millis))
            #expect(RFC3339.fastDate(from: text)?.epochMillis == millis)
        }
    }

    @Test("other shapes fall back to Foundation; nonsense is refused")
    func otherShapes() {
        #expect(RFC3339.date(from: "2026-11-23T14:03:12Z")?.epochMillis == 1_795_442_592_000)
        #expect(RFC3339.date(from: "2026-11-23T15:03:12.5+01:00")?.epochMillis == 1_795_442_592_500)
        #expect(RFC3339.date(from: "2026-13-01T10:00:00.000Z") == nil)
        #expect(RFC3339.date(from: "yesterday") == nil)
    }
}
