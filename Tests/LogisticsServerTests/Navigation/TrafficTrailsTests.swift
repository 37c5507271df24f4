import Foundation
import LogisticsCore
import LogisticsServer
import RoadRouting
import Testing

@Suite("Riders' fixes waiting to be matched and learned from")
struct TrafficTrailsTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func fixes(_ seconds: Range<Int>) -> [LocationFix] {
        seconds.map { second in
            LocationFix(
                lat: 43.73 + Double(second) * 1e-4, lon: 7.42, accuracyM: 5, speedMps: 8, headingDeg: 0,
                recordedAt: start.addingTimeInterval(Double(second)))
        }
    }

    @Test(
        "The newest two wait to be looked ahead to; learned fixes steer the next match; a quiet rider's last fixes are learned"
    )
    func lookAheadAndContext() {
        let trails = TrafficTrails()
        let rider = UUID()
        trails.add(Self.fixes(0..<5), riderId: rider)
        let first = trails.take(now: Self.start.addingTimeInterval(5))
        #expect(first.count == 1)
        #expect(first.first?.trail.count == 5)
        #expect(first.first?.learning == 0..<3)

        trails.add(Self.fixes(5..<6), riderId: rider)
        let second = trails.take(now: Self.start.addingTimeInterval(6))
        // Three learned fixes steer; of the three waiting, the oldest is decided.
        #expect(second.first?.trail.count == 6)
        #expect(second.first?.learning == 3..<4)
        #expect(second.first?.trail.map(\.recordedAt) == (0..<6).map { Self.start.addingTimeInterval(Double($0)) })

        // Nothing new for a while: the two held back are learned without looking ahead.
        let quiet = trails.take(now: Self.start.addingTimeInterval(30))
        #expect(quiet.first?.learning.count == 2)
        #expect(trails.take(now: Self.start.addingTimeInterval(31)).isEmpty)
    }

    @Test("Out-of-order batches are put in time order, a backlog is capped, and each rider is matched alone")
    func orderAndBacklog() {
        let trails = TrafficTrails()
        let (a, b) = (UUID(), UUID())
        trails.add(Self.fixes(3..<6), riderId: a)
        trails.add(Self.fixes(0..<3), riderId: a)
        trails.add(Self.fixes(0..<800), riderId: b)
        let taken = trails.take(now: Self.start.addingTimeInterval(900))
        #expect(taken.count == 2)
        let ofA = taken.first { $0.trail.count == 6 }
        #expect(ofA?.trail.map(\.recordedAt) == (0..<6).map { Self.start.addingTimeInterval(Double($0)) })
        let ofB = taken.first { $0.trail.count != 6 }
        #expect(ofB?.trail.count == TrafficTrails.maximumWaiting)
        // The newest 500 are kept, the oldest dropped.
        #expect(ofB?.trail.last?.recordedAt == Self.start.addingTimeInterval(799))
    }
}
