import Foundation
import LogisticsCore
import Testing

@Suite("Dispatch ranking")
struct DispatchRankingTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func rider(_ seconds: Double?, waitedMinutes: Double) -> DispatchCandidate {
        DispatchCandidate(
            riderId: UUID(), roadSeconds: seconds, freeSince: start.addingTimeInterval(-waitedMinutes * 60))
    }

    @Test("quickest by road first; within the tie band the longest wait goes first; bands follow in road order")
    func order() {
        let quick = Self.rider(100, waitedMinutes: 1)
        let tiedPatient = Self.rider(120, waitedMinutes: 30)
        let slower = Self.rider(200, waitedMinutes: 60)
        let slowest = Self.rider(400, waitedMinutes: 90)
        let ranking = DispatchRanking(tieSeconds: 30, maxRoadSeconds: 1200)
        #expect(
            ranking.rank([slowest, quick, slower, tiedPatient])
                == .ranked([tiedPatient, quick, slower, slowest]))
    }

    @Test("riders without a road time are not asked; nobody timed waits; everyone too far is for dispatchers")
    func nobody() {
        let ranking = DispatchRanking(tieSeconds: 30, maxRoadSeconds: 600)
        #expect(ranking.rank([]) == .nobodyYet)
        #expect(ranking.rank([Self.rider(nil, waitedMinutes: 5)]) == .nobodyYet)
        #expect(
            ranking.rank([Self.rider(900, waitedMinutes: 5), Self.rider(nil, waitedMinutes: 9)])
                == .noneInReach(considered: 1))
        let near = Self.rider(300, waitedMinutes: 0)
        #expect(
            ranking.rank([Self.rider(nil, waitedMinutes: 9), near, Self.rider(700, waitedMinutes: 9)])
                == .ranked([near]))
    }

    @Test("the audit line names riders with whole seconds, at most ten")
    func considered() {
        let riders = (0..<12).map { Self.rider(Double($0) + 0.4, waitedMinutes: 0) }
        let line = DispatchRanking.considered(riders)
        #expect(line.split(separator: ",").count == 10)
        #expect(line.hasPrefix(riders[0].riderId.uuidString.lowercased() + ":0s"))
    }
}
