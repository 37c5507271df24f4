import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import Testing

@testable import TestSupport

/// PostgreSQL keeps the location history in one partition per UTC day of `recorded_at`; housekeeping makes the
/// coming days and drops the expired ones whole.
@Suite(
    "Daily partitions of location fixes", .timeLimit(.minutes(3)),
    .enabled(if: StoreKind.postgresURL != nil, "needs LOGISTICS_TEST_DATABASE_URL"))
struct LocationPartitionTests {
    static let day: TimeInterval = 24 * 3600
    static let retention: TimeInterval = 30 * day
    /// 2026-11-29 10:00 UTC.
    static let now = Date(timeIntervalSince1970: 1_795_946_400)

    @Test("the days around today are made; new fixes go to their day, and the fix key holds across days")
    func making() async throws {
        try await Self.withSchema { repository in
            let riderId = try await Self.rider(repository)
            let roll = try await repository.rollLocationPartitions(now: Self.now, retention: Self.retention)
            #expect(roll == LocationPartitionRoll(created: ["20261128", "20261129", "20261130", "20261201"]))
            try await repository.recordFixes(Self.fixes(at: Self.now), riderId: riderId, now: Self.now)
            try await repository.recordFixes(Self.fixes(at: Self.now), riderId: riderId, now: Self.now)
            let tomorrow = Self.now.addingTimeInterval(Self.day)
            try await repository.recordFixes(Self.fixes(at: tomorrow), riderId: riderId, now: tomorrow)
            #expect(try await Self.count(repository, "rider_locations") == 10)
            #expect(try await Self.count(repository, "rider_locations_p20261129") == 5)
            #expect(try await Self.count(repository, "rider_locations_p20261130") == 5)
            #expect(try await Self.count(repository, "rider_locations_default") == 0)
            #expect(try await repository.lastPosition(riderId: riderId)?.1 == tomorrow.addingTimeInterval(4))

            // A second pass the same hour has nothing to do.
            #expect(try await repository.rollLocationPartitions(now: Self.now, retention: Self.retention) == .init())
        }
    }

    @Test("a day whose fixes already wait in the default partition stays there; the other days are made")
    func waitingDay() async throws {
        try await Self.withSchema { repository in
            let riderId = try await Self.rider(repository)
            try await repository.recordFixes(Self.fixes(at: Self.now), riderId: riderId, now: Self.now)
            let roll = try await repository.rollLocationPartitions(now: Self.now, retention: Self.retention)
            #expect(roll == LocationPartitionRoll(created: ["20261128", "20261130", "20261201"]))
            let later = Self.now.addingTimeInterval(60)
            try await repository.recordFixes(Self.fixes(at: later), riderId: riderId, now: later)
            #expect(try await Self.count(repository, "rider_locations_default") == 10)
        }
    }

    @Test("a day is dropped whole once it ended longer than the retention ago, not a second before")
    func dropping() async throws {
        try await Self.withSchema { repository in
            let riderId = try await Self.rider(repository)
            _ = try await repository.rollLocationPartitions(now: Self.now, retention: Self.retention)
            try await repository.recordFixes(Self.fixes(at: Self.now), riderId: riderId, now: Self.now)

            // 2026-12-29 23:59:59: the 28th ended more than 30 days ago, the 29th a second short of it.
            let endOfDay = Self.now.addingTimeInterval(30 * Self.day + 14 * 3600 - 1)
            let early = try await repository.rollLocationPartitions(now: endOfDay, retention: Self.retention)
            #expect(
                early
                    == LocationPartitionRoll(
                        created: ["20261228", "20261229", "20261230", "20261231"], dropped: ["20261128"]))
            #expect(try await Self.count(repository, "rider_locations") == 5)
            // The row-by-row retention leaves the days' partitions to the drop.
            #expect(try await repository.prune(RetentionPolicy(), now: endOfDay, batch: 1000).locationFixes == 0)
            #expect(try await Self.count(repository, "rider_locations") == 5)

            // A second later the 29th goes whole, and the day after tomorrow is made.
            let roll = try await repository.rollLocationPartitions(
                now: endOfDay.addingTimeInterval(1), retention: Self.retention)
            #expect(roll == LocationPartitionRoll(created: ["20270101"], dropped: ["20261129"]))
            #expect(try await Self.count(repository, "rider_locations") == 0)
        }
    }

    @Test("fixes of a day without a partition go row by row, by when they were received")
    func defaultPartitionRetention() async throws {
        try await Self.withSchema { repository in
            let riderId = try await Self.rider(repository)
            try await repository.recordFixes(Self.fixes(at: Self.now), riderId: riderId, now: Self.now)
            let month = Self.now.addingTimeInterval(Self.retention)
            #expect(try await repository.prune(RetentionPolicy(), now: month, batch: 2).locationFixes == 0)
            let pruned = try await repository.prune(RetentionPolicy(), now: month.addingTimeInterval(1), batch: 2)
            #expect(pruned.locationFixes == 5)
            #expect(try await Self.count(repository, "rider_locations") == 0)
        }
    }

    @Test("instances rolling at once make each day once and fail none")
    func concurrentRolls() async throws {
        try await Self.withSchema { repository in
            let rolls = try await withThrowingTaskGroup(of: LocationPartitionRoll.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await repository.rollLocationPartitions(now: Self.now, retention: Self.retention)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(rolls.flatMap(\.created).sorted() == ["20261128", "20261129", "20261130", "20261201"])
            #expect(try await Self.partitions(repository).count == 5)
        }
    }

    @Test("migrating to partitions keeps every stored fix, its id and the id sequence")
    func migration() async throws {
        try await Self.withSchema(through: 15) { repository in
            let database = repository.database
            let riderId = try await Self.rider(repository)
            try await repository.recordFixes(Self.fixes(at: Self.now), riderId: riderId, now: Self.now)
            let before = try await database.query("SELECT id FROM rider_locations ORDER BY id").map { try $0.int("id") }

            try await Migrator(database: database, logger: Logger(label: "test")).migrate(through: 16)
            let after = try await database.query("SELECT id FROM rider_locations ORDER BY id").map { try $0.int("id") }
            #expect(after == before)
            #expect(try await Self.count(repository, "rider_locations_default") == 5)
            let partitioned = try await database.query(
                "SELECT 1 AS yes FROM pg_partitioned_table WHERE partrelid = 'rider_locations'::regclass")
            #expect(partitioned.count == 1)
            // The old table's indexes and foreign key were taken over, not built again beside them.
            let indexes = try await database.query(
                "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'rider_locations_default' ORDER BY 1"
            )
            #expect(
                try indexes.map { try $0.string("name") } == [
                    "rider_locations_default_fix", "rider_locations_default_order_time", "rider_locations_default_pkey",
                    "rider_locations_default_received",
                ])
            let foreignKeys = try await database.query(
                "SELECT 1 AS yes FROM pg_constraint WHERE conrelid = 'rider_locations_default'::regclass AND contype = 'f'"
            )
            #expect(foreignKeys.count == 1)
            // Version 18 drops the key from the parent, and so from every partition.
            try await Migrator(database: database, logger: Logger(label: "test")).migrate()
            let keysLeft = try await database.query(
                """
                SELECT 1 AS yes FROM pg_constraint JOIN pg_class ON pg_class.oid = conrelid
                WHERE relnamespace = current_schema()::regnamespace AND relname LIKE 'rider_locations%' AND contype = 'f'
                """)
            #expect(keysLeft.isEmpty)

            let later = Self.now.addingTimeInterval(60)
            try await repository.recordFixes(Self.fixes(at: later), riderId: riderId, now: later)
            let newest = try await database.query("SELECT MAX(id) AS id FROM rider_locations")[0].int("id")
            #expect(newest == (before.last ?? 0) + 5)
        }
    }

    /// A repository on a schema of the test's own, migrated through version `last`.
    static func withSchema(
        through last: Int = .max, _ body: (SQLLogisticsRepository) async throws -> Void
    ) async throws {
        try await IsolatedSchema.withDatabase(poolSize: 4) { database in
            try await Migrator(database: database, logger: Logger(label: "test")).migrate(through: last)
            try await body(SQLLogisticsRepository(database: database, logger: Logger(label: "test")))
        }
    }

    static func rider(_ repository: SQLLogisticsRepository) async throws -> UUID {
        let id = UUID()
        try await repository.database.query(
            "INSERT INTO riders (id, created_at, updated_at) VALUES (?, 0, 0)", [.uuid(id)])
        return id
    }

    /// Five fixes a second apart from `start`.
    static func fixes(at start: Date) -> [LocationFix] {
        (0..<5).map { second in
            LocationFix(
                lat: 43.73 + Double(second) * 0.0001, lon: 7.42, accuracyM: 5, speedMps: nil, headingDeg: nil,
                recordedAt: start.addingTimeInterval(TimeInterval(second)))
        }
    }

    static func count(_ repository: SQLLogisticsRepository, _ table: String) async throws -> Int {
        try await repository.database.query("SELECT COUNT(*) AS n FROM \(table)")[0].int("n")
    }

    static func partitions(_ repository: SQLLogisticsRepository) async throws -> [String] {
        try await repository.database.query(
            """
            SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'rider_locations'::regclass
            """
        ).map { try $0.string("name") }
    }
}
