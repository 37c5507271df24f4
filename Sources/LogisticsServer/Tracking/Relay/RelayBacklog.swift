import Foundation

/// What the PostgreSQL relay holds while a notification is on its way: normally a few milliseconds of updates,
/// passed on whole. While the database stalls it would grow with every fix, so past `limit` only each rider's
/// newest position is kept (the next fix would replace the older ones on every screen anyway); order events and
/// notices, which nothing replaces, are all kept, in order.
struct RelayBacklog: BatchBuffer {
    static let defaultLimit = 10_000

    let limit: Int
    private(set) var updates: [TrackingUpdate] = []
    private var compactAbove: Int

    init() { self.init(limit: Self.defaultLimit) }

    init(limit: Int) {
        self.limit = limit
        compactAbove = limit
    }

    mutating func add(_ items: [TrackingUpdate]) {
        updates += items
        if updates.count > compactAbove { compact() }
    }

    mutating func takeAll() -> [TrackingUpdate] {
        defer {
            updates = []
            compactAbove = limit
        }
        return updates
    }

    private mutating func compact() {
        var kept: [TrackingUpdate] = []
        var positionOf: [UUID: Int] = [:]
        for update in updates {
            guard case .fix(let riderId, let fix) = update else {
                kept.append(update)
                continue
            }
            guard let at = positionOf[riderId] else {
                positionOf[riderId] = kept.count
                kept.append(update)
                continue
            }
            // A replayed batch from a phone that was offline must not move the rider back.
            if case .fix(_, let held) = kept[at], held.recordedAt > fix.recordedAt { continue }
            kept[at] = update
        }
        updates = kept
        // With more riders and events than the limit, compacting on every submit would cost the whole backlog each
        // time; waiting until it has doubled keeps the cost per update constant.
        compactAbove = max(limit, 2 * kept.count)
    }
}
