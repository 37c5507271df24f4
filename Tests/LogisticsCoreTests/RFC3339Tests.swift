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

    @Test("every RFC 3339 date-time is read, as the OpenAPI document's format promises")
    func wholeGrammar() {
        let instant: Int64 = 1_795_442_592_000  // 2026-11-23T14:03:12Z
        for text in [
            "2026-11-23t14:03:12z", "2026-11-23T14:03:12.000000000Z", "2026-11-23T14:03:12.0000000000001Z",
            "2026-11-24T13:21:12+23:18", "2026-11-22T14:45:12-23:18", "2026-11-23T14:03:12+00:00",
        ] {
            #expect(RFC3339.fastDate(from: text)?.epochMillis == instant, "\(text)")
        }
        // Schemathesis sent this one; Foundation's parser refused it.
        #expect(RFC3339.fastDate(from: "0504-04-07T15:13:55-22:18") != nil)
        #expect(RFC3339.fastDate(from: "2026-11-23T14:03:12.123456Z")?.epochMillis == instant + 123)
        #expect(RFC3339.fastDate(from: "2026-12-31T23:59:60Z")?.epochMillis == 1_798_761_600_000)
        #expect(RFC3339.fastDate(from: "2024-02-29T00:00:00Z") != nil)
        for text in [
            "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-11-23T24:00:00Z", "2026-11-23T14:03:61Z",
            "2026-11-23T14:03:12+24:00", "2026-11-23T14:03:12+01:60", "2026-11-23T14:03:12.Z", "2026-11-23T14:03:12",
            "2026-11-23T14:03:12+0100", "2026-11-23 14:03:12Z", "2026-11-23T14:03:12Zjunk",
        ] {
            #expect(RFC3339.fastDate(from: text) == nil, "\(text)")
        }
    }
}
