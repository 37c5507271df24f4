import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

@Suite("Cross-instance tracking payloads")
struct RelayPayloadTests {
    @Test("a burst is packed into NOTIFY payloads under the limit and unpacked whole, in order")
    func packAndUnpack() throws {
        let instance = UUID()
        let start = Date(epochMillis: 1_800_000_000_000)
        let fixes: [TrackingUpdate] = (0..<200).map { index in
            .fix(
                riderId: UUID(),
                fix: LocationFix(
                    lat: 43.7 + Double(index) * 0.0001, lon: 7.42, accuracyM: 5, speedMps: 6, headingDeg: 90,
                    recordedAt: start.addingTimeInterval(Double(index))))
        }
        let events: [TrackingUpdate] = try (0..<10).map { _ in
            let json =
                #"{"id":"\#(UUID().lowercased)","orderId":"\#(UUID().lowercased)","status":"PICKED_UP","#
                + #""occurredAt":"2027-01-15T08:00:00.000Z","type":"DeliveryStatusUpdated","seq":3,"data":{}}"#
            return .event(try #require(OrderEventNotice(json: json)))
        }
        let notice = TrackingUpdate.notice(recipientId: UUID(), message: #"{"type":"notification"}"#)
        let payloads = RelayPayload.pack(fixes + events + [notice], from: instance, limit: 7_000)
        #expect(payloads.count > 1)
        #expect(payloads.allSatisfy { $0.utf8.count <= 7_000 })
        var unpacked: [TrackingUpdate] = []
        for payload in payloads {
            let (from, updates) = try #require(RelayPayload.unpack(payload))
            #expect(from == instance)
            unpacked += updates
        }
        let lats = unpacked.compactMap { if case .fix(_, let fix) = $0 { fix.lat } else { nil } }
        #expect(lats == (0..<200).map { 43.7 + Double($0) * 0.0001 })
        #expect(unpacked.filter { if case .event = $0 { true } else { false } }.count == 10)
        #expect(unpacked.filter { if case .notice = $0 { true } else { false } }.count == 1)
    }

    @Test("absent and awkward values survive: no accuracy, quotes and control characters, a rider's exact time")
    func values() throws {
        let instance = UUID()
        let riderId = UUID()
        let fix = LocationFix(
            lat: -33.868_820_123_456_78, lon: 151.209_296, accuracyM: nil, speedMps: 0, headingDeg: nil,
            recordedAt: Date(epochMillis: 1_800_000_000_123))
        let message = "{\"type\":\"notification\",\"text\":\"Line\\none \\\"quoted\\\" \u{1}\"}"
        let payloads = RelayPayload.pack(
            [.fix(riderId: riderId, fix: fix), .notice(recipientId: riderId, message: message)], from: instance,
            limit: 7_000)
        #expect(payloads.count == 1)
        let payload = try #require(payloads.first)
        let (from, updates) = try #require(RelayPayload.unpack(payload))
        #expect(from == instance)
        guard case .fix(let gotRider, let got) = updates.first, case .notice(_, let gotMessage) = updates.last else {
            Issue.record("expected a fix and a notice, got \(updates)")
            return
        }
        #expect(gotRider == riderId)
        #expect(got.lat == fix.lat && got.lon == fix.lon && got.recordedAt == fix.recordedAt)
        #expect(got.accuracyM == nil && got.speedMps == 0 && got.headingDeg == nil)
        #expect(gotMessage == message)
    }

    @Test("payloads are filled close to the limit, and an update larger than it is dropped alone")
    func filling() throws {
        let fixes: [TrackingUpdate] = (0..<1_000).map { index in
            .fix(
                riderId: UUID(),
                fix: LocationFix(
                    lat: 43.7 + Double(index) * 0.000_01, lon: 7.42, accuracyM: 5, speedMps: 6, headingDeg: 90,
                    recordedAt: Date(epochMillis: 1_800_000_000_000 + Int64(index))))
        }
        let huge = TrackingUpdate.notice(recipientId: UUID(), message: String(repeating: "x", count: 8_000))
        let payloads = RelayPayload.pack(
            Array(fixes[..<500]) + [huge] + Array(fixes[500...]), from: UUID(), limit: 7_000)
        let total = payloads.reduce(0) { $0 + $1.utf8.count }
        #expect(payloads.allSatisfy { $0.utf8.count <= 7_000 })
        // Filled greedily: every payload but the last is within one fix of the limit.
        #expect(payloads.dropLast().allSatisfy { $0.utf8.count > 7_000 - 200 })
        #expect(payloads.count == (total + 6_999) / 7_000 || payloads.count == (total + 6_999) / 7_000 + 1)
        let unpacked = payloads.compactMap(RelayPayload.unpack).flatMap(\.1)
        #expect(unpacked.count == 1_000)
    }
}
