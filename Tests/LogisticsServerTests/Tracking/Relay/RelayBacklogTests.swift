import Foundation
import LogisticsCore
import Synchronization
import Testing

@testable import LogisticsServer
@testable import TestSupport

@Suite("The PostgreSQL relay's backlog is bounded", .timeLimit(.minutes(1)))
struct RelayBacklogTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func fix(_ riderId: UUID, _ second: Int) -> TrackingUpdate {
        .fix(
            riderId: riderId,
            fix: LocationFix(
                lat: 43.73, lon: 7.42, accuracyM: 5, speedMps: nil, headingDeg: nil,
                recordedAt: start.addingTimeInterval(TimeInterval(second))))
    }

    static func newestPositions(_ updates: [TrackingUpdate]) -> [UUID: Date] {
        var newest: [UUID: Date] = [:]
        for case .fix(let riderId, let fix) in updates {
            newest[riderId] = max(newest[riderId] ?? .distantPast, fix.recordedAt)
        }
        return newest
    }

    static func messages(_ updates: [TrackingUpdate]) -> [String] {
        updates.compactMap { update in
            if case .notice(_, let message) = update { return message }
            return nil
        }
    }

    @Test("past the limit each rider keeps only its newest position; every notice stays, in order")
    func compaction() {
        let riders = (0..<5).map { _ in UUID() }
        var backlog = RelayBacklog(limit: 50)
        var sent: [TrackingUpdate] = []
        for second in 0..<200 {
            for rider in riders { sent.append(Self.fix(rider, second)) }
            if second % 10 == 0 { sent.append(.notice(recipientId: riders[0], message: "status \(second)")) }
            // An old fix replayed late must not win over a newer one.
            if second == 150 { sent.append(Self.fix(riders[1], 3)) }
        }
        for chunk in stride(from: 0, to: sent.count, by: 7) {
            backlog.add(Array(sent[chunk..<min(chunk + 7, sent.count)]))
            #expect(backlog.updates.count <= 50 + 7)
        }
        let held = backlog.takeAll()
        #expect(Self.newestPositions(held) == Self.newestPositions(sent))
        // Far fewer than the 1,000 fixes sent: what is left is the last stretch since the latest compaction.
        #expect(held.count <= 50 + 7)
        #expect(Self.messages(held) == Self.messages(sent))
        #expect(backlog.updates.isEmpty)
    }

    @Test("under the limit nothing is dropped; with more messages than the limit, none is dropped either")
    func underTheLimit() {
        let rider = UUID()
        var backlog = RelayBacklog(limit: 50)
        let few = (0..<40).map { Self.fix(rider, $0) }
        backlog.add(few)
        #expect(backlog.takeAll().count == 40)
        let notices = (0..<500).map { TrackingUpdate.notice(recipientId: rider, message: "offer \($0)") }
        for notice in notices { backlog.add([notice, Self.fix(rider, 1)]) }
        let held = backlog.takeAll()
        #expect(Self.messages(held) == Self.messages(notices))
        #expect(held.count <= 500 + 2 * 50)
    }

    @Test("while the handler is stuck (a stalled NOTIFY), the next batch holds one position per rider")
    func stalledHandler() async throws {
        let batches = Mutex<[[TrackingUpdate]]>([])
        let (gate, opener) = AsyncStream<Void>.makeStream()
        let queue = BufferedBatchQueue<RelayBacklog> { batch in
            let first = batches.withLock { batches in
                batches.append(batch)
                return batches.count == 1
            }
            if first { for await _ in gate { break } }
        }
        let riders = (0..<3).map { _ in UUID() }
        queue.submit([Self.fix(riders[0], 0)])
        for _ in 0..<500 where batches.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        for second in 1...20_000 {
            queue.submit([Self.fix(riders[second % 3], second)])
            if second % 1000 == 0 { queue.submit([.notice(recipientId: riders[0], message: "event \(second)")]) }
        }
        opener.yield()
        for _ in 0..<500 where batches.withLock({ $0.count < 2 }) { try await Task.sleep(for: .milliseconds(10)) }
        let second = try #require(batches.withLock { $0.count == 2 ? $0[1] : nil })
        #expect(second.count <= RelayBacklog.defaultLimit)
        #expect(Self.messages(second) == (1...20).map { "event \($0 * 1000)" })
        #expect(Self.newestPositions(second)[riders[20_000 % 3]] == Self.start.addingTimeInterval(20_000))
    }
}
