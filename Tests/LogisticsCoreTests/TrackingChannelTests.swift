import Foundation
import LogisticsCore
import Testing

@Suite("Live-tracking channel")
struct TrackingChannelTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func fix(_ seconds: TimeInterval, lat: Double = 43.7347, lon: Double = 7.4240, accuracy: Double = 5)
        -> TrackedPosition
    {
        TrackedPosition(lat: lat, lon: lon, accuracyM: accuracy, recordedAt: start.addingTimeInterval(seconds))
    }

    @Test("one location per 5 s unless the rider moved more than 25 m; never backwards; never a 100 m+ fix")
    func throttling() {
        var channel = TrackingChannel(status: .inTransit)
        #expect(channel.record(fix(0))?.seq == 1)
        #expect(channel.record(fix(2)) == nil)  // 2 s later, same place
        #expect(channel.record(fix(3, lat: 43.7350))?.seq == 2)  // ~33 m away: shown at once
        #expect(channel.record(fix(1, lat: 43.7400)) == nil)  // older than the newest fix
        #expect(channel.record(fix(4, lat: 43.7400, accuracy: 150)) == nil)  // too inaccurate to show
        #expect(channel.record(fix(9, lat: 43.7350))?.seq == 3)  // 6 s after the last shown one
        #expect(channel.lastShown?.recordedAt == start.addingTimeInterval(9))
    }

    @Test("stale after 15 s without a fix, once; the last position is kept")
    func stale() {
        var channel = TrackingChannel(status: .inTransit)
        _ = channel.record(fix(0))
        #expect(channel.checkStale(now: start.addingTimeInterval(14), since: start) == nil)
        let stale = channel.checkStale(now: start.addingTimeInterval(15), since: start)
        #expect(stale == .stale(seq: 2, lastFixAt: start))
        #expect(channel.checkStale(now: start.addingTimeInterval(30), since: start) == nil)
        #expect(channel.lastShown == fix(0))
        #expect(channel.record(fix(31))?.seq == 3)
        #expect(!channel.isStale)
    }

    @Test("an operator's shorter stale threshold (LOGISTICS_TRACKING_STALE_SECONDS) is honoured")
    func shorterStaleThreshold() {
        var channel = TrackingChannel(status: .inTransit, staleAfterSeconds: 3)
        _ = channel.record(fix(0))
        #expect(channel.checkStale(now: start.addingTimeInterval(2.9), since: start) == nil)
        #expect(channel.checkStale(now: start.addingTimeInterval(3), since: start) == .stale(seq: 2, lastFixAt: start))
    }

    @Test("a late event never moves the stream backwards")
    func lateEvents() {
        var channel = TrackingChannel(status: .inTransit)
        #expect(channel.statusChanged(to: .riderAssigned, at: start).isEmpty)
        #expect(channel.statusChanged(to: .inTransit, at: start).isEmpty)
        #expect(channel.statusChanged(to: .arrivedAtDestination, at: start).map(\.seq) == [1])
        #expect(channel.statusChanged(to: .inTransit, at: start).isEmpty)
    }

    @Test("DELIVERED gives status then ended; nothing follows")
    func ended() {
        var channel = TrackingChannel(status: .inTransit, seq: 7)
        let messages = channel.statusChanged(to: .delivered, at: start)
        #expect(
            messages == [.status(seq: 8, status: .delivered, occurredAt: start), .ended(seq: 9, status: .delivered)])
        #expect(channel.record(fix(1)) == nil)
        #expect(channel.statusChanged(to: .cancelled, at: start).isEmpty)
        #expect(channel.checkStale(now: start.addingTimeInterval(60), since: start) == nil)
    }

    @Test("a parcel sent back to the store ends the customer's view of the rider there")
    func returning() {
        var channel = TrackingChannel(status: .arrivedAtDestination, seq: 3)
        let messages = channel.statusChanged(to: .returningToStore, at: start)
        #expect(
            messages == [
                .status(seq: 4, status: .returningToStore, occurredAt: start),
                .ended(seq: 5, status: .returningToStore),
            ])
        #expect(channel.record(fix(1)) == nil)
        #expect(channel.statusChanged(to: .returned, at: start).isEmpty)
    }

    @Test("resume replays exactly the missed messages in order, or asks for a resync when they are gone")
    func resume() {
        var channel = TrackingChannel(status: .inTransit, historyLimit: 4)
        for second in 0..<6 { _ = channel.record(fix(Double(second) * 6, lat: 43.7 + Double(second) * 0.001)) }
        #expect(channel.seq == 6)
        #expect(channel.replay(after: 6) == .messages([]))
        guard case .messages(let missed) = channel.replay(after: 3) else {
            Issue.record("expected messages")
            return
        }
        #expect(missed.map(\.seq) == [4, 5, 6])
        #expect(channel.replay(after: 1) == .resync)
        // The oldest kept message is 3, so resuming from 2 still needs nothing that is gone.
        guard case .messages(let fromTwo) = channel.replay(after: 2) else {
            Issue.record("expected messages")
            return
        }
        #expect(fromTwo.map(\.seq) == [3, 4, 5, 6])
        // A seq from another stream (a channel opened again, another instance) is never trusted.
        #expect(channel.replay(after: 9) == .resync)
        #expect(channel.replay(after: 4, stream: "elsewhere") == .resync)
        #expect(channel.replay(after: 6, stream: channel.stream) == .messages([]))
    }

    @Test("the replayable history is always exactly the newest `historyLimit` messages, however many came")
    func historyWindow() {
        var channel = TrackingChannel(status: .inTransit, historyLimit: 8)
        for second in 0..<50 {
            _ = channel.record(fix(Double(second) * 6, lat: 43.7 + Double(second) * 0.001))
            let seq = channel.seq
            let oldest = max(1, seq - 7)
            guard case .messages(let all) = channel.replay(after: oldest - 1) else {
                Issue.record("seq \(seq): resuming from \(oldest - 1) should replay")
                return
            }
            #expect(all.map(\.seq) == Array(oldest...seq))
            if oldest > 1 { #expect(channel.replay(after: oldest - 2) == .resync, "seq \(seq)") }
        }
    }

    @Test("messages encode as API.md shows them")
    func encoding() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(from: date))
        }
        let location = String(
            decoding: try encoder.encode(TrackingMessage.location(seq: 4, position: fix(0))), as: UTF8.self)
        #expect(
            location
                == #"{"accuracyM":5,"lat":43.7347,"lon":7.424,"recordedAt":"2027-01-15T08:00:00.000Z","seq":4,"type":"location"}"#
        )
        let ended = String(
            decoding: try encoder.encode(TrackingMessage.ended(seq: 9, status: .delivered)), as: UTF8.self)
        #expect(ended == #"{"seq":9,"status":"DELIVERED","type":"ended"}"#)
    }

    @Test("the hand-written JSON of every message kind decodes to the same document as the Encodable form")
    func jsonText() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(from: date))
        }
        let messages: [TrackingMessage] = [
            .location(seq: 7, position: fix(1.234, lat: 43.73961, lon: 7.427612, accuracy: 4.5)),
            .location(seq: 8, position: TrackedPosition(lat: -1, lon: 2, accuracyM: nil, recordedAt: start)),
            .status(seq: 9, status: .arrivedAtDestination, occurredAt: start),
            .stale(seq: 10, lastFixAt: start), .stale(seq: 11, lastFixAt: nil), .ended(seq: 12, status: .delivered),
        ]
        for message in messages {
            let handWritten = try JSONSerialization.jsonObject(with: Data(message.jsonText.utf8)) as? NSDictionary
            let encoded = try JSONSerialization.jsonObject(with: encoder.encode(message)) as? NSDictionary
            #expect(handWritten == encoded, "\(message.jsonText)")
        }
    }
}
