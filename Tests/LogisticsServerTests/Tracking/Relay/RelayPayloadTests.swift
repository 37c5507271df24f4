import Foundation
import LogisticsCore
import RoadRouting
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

    @Test("what pack writes is read off its bytes to what JSONDecoder reads; what it cannot read is decoded")
    func readOffTheBytes() throws {
        var random = SeededGenerator(state: 2429)
        let message = "{\"type\":\"notification\",\"text\":\"a [bracket], a } and \\\"quotes\\\"\"}"
        let event =
            #"{"id":"\#(UUID().lowercased)","orderId":"\#(UUID().lowercased)","status":"PICKED_UP","#
            + #""occurredAt":"2027-01-15T08:00:00.000Z","type":"DeliveryStatusUpdated","seq":3,"data":{"a":"]"}}"#
        var readOff = 0
        for round in 0..<300 {
            var updates: [TrackingUpdate] = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                .fix(
                    riderId: UUID(),
                    fix: LocationFix(
                        lat: Double.random(in: -90...90, using: &random),
                        lon: Double.random(in: -180...180, using: &random),
                        accuracyM: Bool.random(using: &random)
                            ? nil : Int.random(in: 0..<200, using: &random) == 0 ? 0.000_01 : 12.25,
                        speedMps: Bool.random(using: &random) ? nil : Double.random(in: 0...40, using: &random),
                        headingDeg: Bool.random(using: &random) ? nil : 359.9,
                        recordedAt: Date(epochMillis: Int64.random(in: 0...4_000_000_000_000, using: &random))))
            }
            if round % 3 == 0 { updates.append(.event(try #require(OrderEventNotice(json: event)))) }
            if round % 5 == 0 { updates.append(.notice(recipientId: UUID(), message: message)) }
            for payload in RelayPayload.pack(updates, from: UUID(), limit: 7_000) {
                let decoded = try #require(RelayPayload.decode(payload))
                var bytes = payload
                if let read = bytes.withUTF8({ RelayPayload.read(UnsafeRawBufferPointer($0)) }) {
                    readOff += 1
                    #expect(read.0 == decoded.0)
                    #expect("\(read.1)" == "\(decoded.1)", "round \(round)")
                }
                #expect("\(try #require(RelayPayload.unpack(payload)).1)" == "\(decoded.1)")
            }
        }
        // An accuracy of 0.00001 is written as 1e-05, which only the decoder reads.
        #expect(readOff > 100 && readOff < 300, "\(readOff) payloads read off their bytes")
        #expect(RelayPayload.unpack(#"{"from":"x","fixes":[]}"#) == nil)
    }
}
