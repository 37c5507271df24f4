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
}
