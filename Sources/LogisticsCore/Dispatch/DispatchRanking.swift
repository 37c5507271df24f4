import Foundation

/// A free rider the dispatcher may offer an order to, with the road time from their last position to the store.
public struct DispatchCandidate: Sendable, Equatable {
    public var riderId: UUID
    /// Seconds by road to the store; nil when the rider has no position yet or the router finds no path.
    public var roadSeconds: Double?
    /// Since when the rider has been free (online without a task): the longest wait wins a tie.
    public var freeSince: Date

    public init(riderId: UUID, roadSeconds: Double?, freeSince: Date) {
        self.riderId = riderId
        self.roadSeconds = roadSeconds
        self.freeSince = freeSince
    }
}

/// How automatic dispatch chooses: the quickest rider by road, where riders within `tieSeconds` of the quickest
/// count as equally quick and the one who has waited longest goes first (fair to riders, and a few seconds of
/// road time are within the router's own error); nobody farther than `maxRoadSeconds`.
public struct DispatchRanking: Sendable, Equatable {
    public var tieSeconds: Double
    public var maxRoadSeconds: Double

    public init(tieSeconds: Double = 30, maxRoadSeconds: Double = 1200) {
        self.tieSeconds = tieSeconds
        self.maxRoadSeconds = maxRoadSeconds
    }

    /// The order in which riders are asked, or why nobody is.
    public enum Outcome: Sendable, Equatable {
        case ranked([DispatchCandidate])
        /// Free riders with a known road time exist, but all are farther than the limit: dispatchers should know.
        case noneInReach(considered: Int)
        /// Nobody free has a known road time (nobody free, no position yet, no path): riders come online, move and
        /// finish tasks all the time, so the order waits for the next look.
        case nobodyYet
    }

    public func rank(_ candidates: [DispatchCandidate]) -> Outcome {
        let timed = candidates.filter { $0.roadSeconds != nil }
        guard !timed.isEmpty else { return .nobodyYet }
        var reachable = timed.filter { $0.roadSeconds! <= maxRoadSeconds }
        guard !reachable.isEmpty else { return .noneInReach(considered: timed.count) }
        // Keys made once: a rider id's text is made anew on every use, and a thousand riders sort in ~10⁴ comparisons.
        reachable = reachable.map { ($0.roadSeconds!, $0.riderId.uuidString, $0) }.sorted {
            ($0.0, $0.1) < ($1.0, $1.1)
        }
        .map(\.2)
        // Bands of tieSeconds from the quickest remaining rider: within a band, the longest wait first.
        var ranked: [DispatchCandidate] = []
        var rest = reachable[...]
        while let quickest = rest.first {
            let band = rest.prefix { $0.roadSeconds! <= quickest.roadSeconds! + tieSeconds }
            ranked += band.sorted { ($0.freeSince, $0.roadSeconds!) < ($1.freeSince, $1.roadSeconds!) }
            rest = rest.dropFirst(band.count)
        }
        return .ranked(ranked)
    }

    /// The audit line for the order's event log: the first few riders considered with their road times.
    public static func considered(_ ranked: [DispatchCandidate], limit: Int = 10) -> String {
        ranked.prefix(limit).map { candidate in
            "\(candidate.riderId.lowercased):\(candidate.roadSeconds.map { "\(Int($0.rounded()))s" } ?? "-")"
        }.joined(separator: ",")
    }
}

extension Actor {
    /// Who the order's event log names for what automatic dispatch does.
    public static let automaticDispatch = Actor(
        id: UUID(uuidString: "00000000-0000-4000-8000-00000000d15a")!, role: .dispatcher, name: "automatic dispatch")
}
