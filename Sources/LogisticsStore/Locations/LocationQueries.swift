import Foundation
import LogisticsCore

/// One rider's share of a location write: the fixes the thinned history keeps and the newest positions.
public struct RiderFixWrite: Sendable {
    public var riderId: UUID
    public var kept: [LocationFix]
    /// The newest fix of any accuracy (dispatch) and the newest one a customer may be shown.
    public var newest: LocationFix?
    public var newestShowable: LocationFix?

    public init(riderId: UUID, kept: [LocationFix], newest: LocationFix?, newestShowable: LocationFix?) {
        self.riderId = riderId
        self.kept = kept
        self.newest = newest
        self.newestShowable = newestShowable
    }
}

/// Where riders are: their thinned location history and their newest positions.
public protocol LocationRepository: Sendable {
    /// Stores the writes of many riders in one transaction. Positions only move forward in time (batches replayed
    /// after an outage may arrive out of order); fixes already stored are skipped.
    func storeFixes(_ writes: [RiderFixWrite], now: Date) async throws
    /// The newest fix of the rider a customer may be shown (accuracy of 100 m or better).
    func lastShowableFix(riderId: UUID) async throws -> TrackedPosition?
    /// The rider's newest usable position and when it was recorded, if any.
    func lastPosition(riderId: UUID) async throws -> (GeoPoint, Date)?
    /// The fixes kept while riders worked on the order, oldest first; the first `limit` of them.
    func orderTrail(orderId: UUID, limit: Int) async throws -> [LocationFix]
}

extension LocationRepository {
    /// One rider's fixes, all kept: for tools and tests that bypass the live-tracking intake.
    public func recordFixes(_ fixes: [LocationFix], riderId: UUID, now: Date) async throws {
        let showable = fixes.filter { $0.trackedPosition.isShowable }
        try await storeFixes(
            [
                RiderFixWrite(
                    riderId: riderId, kept: fixes, newest: fixes.max { $0.recordedAt < $1.recordedAt },
                    newestShowable: showable.max { $0.recordedAt < $1.recordedAt })
            ], now: now)
    }
}

extension SQLLogisticsRepository: LocationRepository {
    public func orderTrail(orderId: UUID, limit: Int) async throws -> [LocationFix] {
        try await database.query(
            """
            SELECT lat, lon, accuracy_m, speed_mps, heading_deg, recorded_at FROM rider_locations
            WHERE order_id = ? ORDER BY recorded_at LIMIT ?
            """, [.uuid(orderId), .int(Int64(limit))]
        ).compactMap { row in
            guard let lat = row.optionalDouble("lat"), let lon = row.optionalDouble("lon") else { return nil }
            return LocationFix(
                lat: lat, lon: lon, accuracyM: row.optionalDouble("accuracy_m"),
                speedMps: row.optionalDouble("speed_mps"),
                headingDeg: row.optionalDouble("heading_deg"), recordedAt: try row.date("recorded_at"))
        }
    }

    public func lastPosition(riderId: UUID) async throws -> (GeoPoint, Date)? {
        try await database.first(
            "SELECT last_lat, last_lon, last_fix_at FROM riders WHERE id = ? AND last_fix_at IS NOT NULL",
            [.uuid(riderId)]
        )?.riderLastPosition()
    }

    public func lastShowableFix(riderId: UUID) async throws -> TrackedPosition? {
        guard
            let row = try await database.first(
                """
                SELECT shown_lat, shown_lon, shown_accuracy_m, shown_fix_at FROM riders
                WHERE id = ? AND shown_fix_at IS NOT NULL
                """, [.uuid(riderId)]),
            let lat = row.optionalDouble("shown_lat"), let lon = row.optionalDouble("shown_lon")
        else { return nil }
        return TrackedPosition(
            lat: lat, lon: lon, accuracyM: row.optionalDouble("shown_accuracy_m"),
            recordedAt: try row.date("shown_fix_at"))
    }

    /// Rows per SQLite statement: 10 binds each, 10,000 a statement, below SQLite's 32,766. Every
    /// statement is a round trip to the database's thread or socket and back onto a busy executor; with a tenth as
    /// many rows a statement, a large batch took so many round trips that acknowledgements waited seconds.
    private static let rowsPerInsert = 1000

    public func storeFixes(_ writes: [RiderFixWrite], now: Date) async throws {
        guard !writes.isEmpty else { return }
        // Rows are locked in the order they are written: two group commits at once (PostgreSQL's two lanes) that
        // share riders, as a phone's retry beside its first try does, deadlocked when they listed them in
        // different orders, and PostgreSQL failed one after a second. Every write now takes them in one order.
        let writes = writes.sorted { $0.riderId < $1.riderId }
        try await database.transaction { transaction in
            let postgres = transaction.dialect == .postgres
            // The history records which delivery each fix belongs to: one lookup for every rider in the write.
            let riderIds = Array(Set(writes.map(\.riderId)))
            let unfinished = "tasks.status NOT IN \(TaskStatus.finalSQLList)"
            // On PostgreSQL the ids come as one array, each looked up in the index of unfinished tasks:
            // `rider_id = ANY(?)` compared every task with every id, and a join with the array scanned every task,
            // both growing with the never-pruned business record. `OFFSET 0` keeps the planner from
            // turning the lookups back into that join.
            let (query, binds): (String, [SQLValue]) =
                postgres
                ? (
                    """
                    SELECT t.rider_id, t.id, t.order_id FROM unnest(CAST(? AS TEXT[])) AS r (id)
                    CROSS JOIN LATERAL (
                        SELECT tasks.rider_id, tasks.id, tasks.order_id FROM tasks
                        WHERE tasks.rider_id = r.id AND \(unfinished) OFFSET 0) AS t
                    """,
                    [.column(SQLColumn(.text, riderIds.map { .uuid($0) }))]
                )
                : (
                    """
                    SELECT tasks.rider_id, tasks.id, tasks.order_id FROM tasks
                    WHERE tasks.rider_id IN (\(placeholders(riderIds.count))) AND \(unfinished)
                    """,
                    riderIds.map { .uuid($0) }
                )
            var active: [UUID: (task: UUID, order: UUID)] = [:]
            for row in try await transaction.hotQuery(query, binds) {
                active[try row.uuid("rider_id")] = (try row.uuid("id"), try row.uuid("order_id"))
            }
            var rows: [[SQLValue]] = []
            for write in writes {
                let task = active[write.riderId]
                for fix in write.kept.sorted(by: { $0.recordedAt < $1.recordedAt }) {
                    rows.append([
                        .uuid(write.riderId), .uuid(task?.task), .uuid(task?.order), .double(fix.lat), .double(fix.lon),
                        .double(fix.accuracyM), .double(fix.speedMps), .double(fix.headingDeg), .date(fix.recordedAt),
                        .date(now),
                    ])
                }
            }
            let moved = writes.filter { $0.newest != nil || $0.newestShowable != nil }
            if postgres {
                try await Self.storeAsColumns(rows, moved: moved, in: transaction)
                return
            }
            var start = 0
            while start < rows.count {
                let chunk = rows[start..<min(rows.count, start + Self.rowsPerInsert)]
                try await transaction.query(
                    "\(Self.fixInsert) VALUES \(Self.valueRows(chunk.count)) \(Self.fixConflict)", chunk.flatMap { $0 })
                start += Self.rowsPerInsert
            }
            // Both positions of every rider in a few statements, each only forward in time: statement parsing
            // was the largest cost of the write under load, so it is one UPDATE per 1,000 riders, not one each.
            var first = 0
            while first < moved.count {
                let chunk = moved[first..<min(moved.count, first + Self.rowsPerInsert)]
                try await transaction.query(Self.positionUpdate(rows: chunk.count), chunk.flatMap(Self.positionBinds))
                first += Self.rowsPerInsert
            }
        }
    }

    /// PostgreSQL takes the whole write as one array per column, in two statements of ten binds each whatever the
    /// batch: parsing and planning a `VALUES` list of 10,000 parameters was most of its cost per fix.
    private static func storeAsColumns(_ rows: [[SQLValue]], moved: [RiderFixWrite], in transaction: any SQLExecutor)
        async throws
    {
        let types: [SQLColumn.Kind] = [
            .text, .text, .text, .float8, .float8, .float8, .float8, .float8, .bigint, .bigint,
        ]
        if !rows.isEmpty {
            try await transaction.hotQuery(
                "\(fixInsert) SELECT * FROM \(unnest(types)) \(fixConflict)",
                types.indices.map { column in .column(SQLColumn(types[column], rows.map { $0[column] })) })
        }
        guard !moved.isEmpty else { return }
        let binds = moved.map(positionBinds)
        let positionTypes: [SQLColumn.Kind] = [
            .text, .bigint, .float8, .float8, .bigint, .bigint, .float8, .float8, .float8, .bigint,
        ]
        try await transaction.hotQuery(
            "UPDATE riders SET \(positionAssignments) FROM \(unnest(positionTypes)) AS v (\(positionColumns)) "
                + "WHERE riders.id = v.id",
            positionTypes.indices.map { column in .column(SQLColumn(positionTypes[column], binds.map { $0[column] })) })
    }

    private static func unnest(_ types: [SQLColumn.Kind]) -> String {
        "unnest(\(types.map { "CAST(? AS \($0.rawValue)[])" }.joined(separator: ", ")))"
    }

    private static let fixInsert = """
        INSERT INTO rider_locations (rider_id, task_id, order_id, lat, lon, accuracy_m, speed_mps, heading_deg,
            recorded_at, received_at)
        """
    private static let fixConflict = "ON CONFLICT (rider_id, recorded_at, lat, lon) DO NOTHING"
}

extension SQLLogisticsRepository {
    /// SQLite's position update: `UPDATE … FROM` a `VALUES` list named by a CTE (SQLite 3.33+). PostgreSQL reads
    /// the same assignments from arrays (`storeAsColumns`).
    fileprivate static func positionUpdate(rows: Int) -> String {
        """
        WITH v (\(positionColumns)) AS (VALUES \(valueRows(rows)))
        UPDATE riders SET \(positionAssignments)
        FROM v WHERE riders.id = v.id
        """
    }

    /// `count` rows of ten parameters: a fix and a rider's positions both take ten.
    fileprivate static func valueRows(_ count: Int) -> String {
        Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
    }

    fileprivate static let positionColumns =
        "id, has_last, lat, lon, at, has_shown, shown_lat, shown_lon, shown_accuracy, shown_at"

    /// Each position moves only forward in time.
    fileprivate static let positionAssignments: String = {
        let newer = "v.has_last = 1 AND (riders.last_fix_at IS NULL OR riders.last_fix_at < v.at)"
        let shown = "v.has_shown = 1 AND (riders.shown_fix_at IS NULL OR riders.shown_fix_at < v.shown_at)"
        return """
            last_lat = CASE WHEN \(newer) THEN v.lat ELSE riders.last_lat END,
                last_lon = CASE WHEN \(newer) THEN v.lon ELSE riders.last_lon END,
                last_fix_at = CASE WHEN \(newer) THEN v.at ELSE riders.last_fix_at END,
                shown_lat = CASE WHEN \(shown) THEN v.shown_lat ELSE riders.shown_lat END,
                shown_lon = CASE WHEN \(shown) THEN v.shown_lon ELSE riders.shown_lon END,
                shown_accuracy_m = CASE WHEN \(shown) THEN v.shown_accuracy ELSE riders.shown_accuracy_m END,
                shown_fix_at = CASE WHEN \(shown) THEN v.shown_at ELSE riders.shown_fix_at END
            """
    }()

    fileprivate static func positionBinds(_ write: RiderFixWrite) -> [SQLValue] {
        let last = write.newest
        let shown = write.newestShowable
        return [
            .uuid(write.riderId), .bool(last != nil), .double(last?.lat), .double(last?.lon), .date(last?.recordedAt),
            .bool(shown != nil), .double(shown?.lat), .double(shown?.lon), .double(shown?.accuracyM),
            .date(shown?.recordedAt),
        ]
    }
}
