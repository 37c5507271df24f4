import Foundation

/// What one pass over PostgreSQL's daily partitions of `rider_locations` did.
public struct LocationPartitionRoll: Sendable, Equatable {
    /// Days given a partition of their own, ahead of their fixes.
    public var created: [String] = []
    /// Days whose every fix was past its retention, dropped whole.
    public var dropped: [String] = []

    public init(created: [String] = [], dropped: [String] = []) {
        self.created = created
        self.dropped = dropped
    }
}

/// One UTC day of `recorded_at`, the range of one partition.
struct LocationDay: Hashable, Comparable {
    static let millis: Int64 = 86_400_000
    /// Days since 1970-01-01.
    var index: Int64

    init(index: Int64) { self.index = index }
    init(containing date: Date) {
        index = Int64((date.timeIntervalSince1970 * 1000 / Double(Self.millis)).rounded(.down))
    }

    var start: Int64 { index * Self.millis }
    var end: Int64 { start + Self.millis }

    /// `20261129`.
    var label: String {
        let date = Date(timeIntervalSince1970: TimeInterval(start / 1000))
        let parts = Self.utc.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d%02d%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    var table: String { "rider_locations_p\(label)" }

    init?(table: String) {
        let prefix = "rider_locations_p"
        guard table.hasPrefix(prefix), let number = Int(table.dropFirst(prefix.count)), number > 0 else { return nil }
        let parts = DateComponents(year: number / 10_000, month: number / 100 % 100, day: number % 100)
        guard let date = Self.utc.date(from: parts) else { return nil }
        self.init(containing: date)
    }

    static func < (lhs: LocationDay, rhs: LocationDay) -> Bool { lhs.index < rhs.index }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}

extension SQLLogisticsRepository {
    /// Days of fixes a partition is made for ahead of `now`: phones' clocks run a little fast, and a pass an hour
    /// late must still find tomorrow's partition made.
    static let partitionDaysAhead: Int64 = 2

    /// On PostgreSQL, makes the partitions of yesterday to `partitionDaysAhead` days on, and drops every day that
    /// ended before `now - retention`: a fix is kept for the retention to a day more after it was recorded.
    /// Deleting the expired hour's rows every hour instead would do all the work a drop saves. A day whose fixes
    /// already wait in the default partition (the first day after the upgrade, or after days without housekeeping)
    /// is left there: moving them could take longer than a statement may, and they go row by row as they expire.
    /// Each day is made in its own transaction, so one that fails does not hold up the others. Several instances
    /// may run this at once: one does the work, the others wait for it and find nothing left to do. SQLite keeps
    /// one table, pruned row by row.
    public func rollLocationPartitions(now: Date, retention: TimeInterval) async throws -> LocationPartitionRoll {
        guard database.dialect == .postgres else { return LocationPartitionRoll() }
        let today = LocationDay(containing: now)
        let cutoff = now.addingTimeInterval(-retention).epochMillis
        // An hourly pass that finds every coming day made ends with this one transaction.
        let (dropped, kept) = try await database.transaction { transaction in
            try await Self.lockPartitions(transaction)
            let days = try await Self.partitionDays(transaction)
            var dropped: [String] = []
            for day in days.sorted() where day.end <= cutoff {
                try await transaction.query("DROP TABLE \(day.table)")
                dropped.append(day.label)
            }
            return (dropped, days.filter { $0.end > cutoff })
        }
        var roll = LocationPartitionRoll(dropped: dropped)
        for index in today.index - 1...today.index + Self.partitionDaysAhead {
            let day = LocationDay(index: index)
            guard day.end > cutoff, !kept.contains(day) else { continue }
            // Another instance may have made it since: asked again under the lock.
            let made = try await database.transaction { transaction in
                try await Self.lockPartitions(transaction)
                guard try await !Self.partitionDays(transaction).contains(day) else { return false }
                // Attaching checks the default partition holds none of the day's fixes; the lock keeps one from
                // landing there between that check and ours.
                try await transaction.query("LOCK TABLE rider_locations_default IN ACCESS EXCLUSIVE MODE")
                let waiting = try await transaction.query(
                    "SELECT 1 AS waiting FROM rider_locations_default WHERE recorded_at >= ? AND recorded_at < ? LIMIT 1",
                    [.int(day.start), .int(day.end)])
                guard waiting.isEmpty else { return false }
                try await transaction.query("CREATE TABLE \(day.table) (LIKE rider_locations INCLUDING DEFAULTS)")
                // Attaching takes a lock that lets inserts go on, where `CREATE TABLE … PARTITION OF` would stop them.
                try await transaction.query(
                    "ALTER TABLE rider_locations ATTACH PARTITION \(day.table) FOR VALUES FROM (\(day.start)) TO (\(day.end))"
                )
                return true
            }
            if made { roll.created.append(day.label) }
        }
        return roll
    }

    private static func lockPartitions(_ transaction: any SQLExecutor) async throws {
        try await transaction.query("SELECT pg_advisory_xact_lock(72100002, hashtext(current_schema()))")
    }

    private static func partitionDays(_ transaction: any SQLExecutor) async throws -> Set<LocationDay> {
        Set(
            try await transaction.query(
                """
                SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                WHERE i.inhparent = 'rider_locations'::regclass
                """
            ).compactMap { LocationDay(table: try $0.string("name")) })
    }
}
