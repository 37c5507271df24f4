import Foundation
import LogisticsStore
import Testing

@testable import TestSupport

/// Whole columns are bound as binary arrays on PostgreSQL (`SQLColumn`): what `unnest` reads back must be exactly
/// what was sent, NULLs and odd values included, and the statement may run prepared or unnamed.
@Suite(
    "Columns bound as binary arrays", .timeLimit(.minutes(2)),
    .enabled(if: StoreKind.postgresURL != nil, "needs LOGISTICS_TEST_DATABASE_URL"))
struct PostgresColumnTests {
    static let sql = """
        SELECT v.n, v.t, v.i, v.d FROM unnest(CAST(? AS TEXT[]), CAST(? AS BIGINT[]), CAST(? AS FLOAT8[]))
        WITH ORDINALITY AS v (t, i, d, n) ORDER BY v.n
        """

    @Test("texts, integers and doubles with NULLs read back exactly, prepared and unnamed")
    func roundTrip() async throws {
        var generator = SystemRandomNumberGenerator()
        var texts: [SQLValue] = [.text(""), .text("é, \"quoted\" {braces} \\ NULL"), .null, .text(UUID().lowercased)]
        var ints: [SQLValue] = [.int(.min), .int(.max), .int(0), .null]
        var doubles: [SQLValue] = [.double(-0.0), .double(.greatestFiniteMagnitude), .null, .int(-7)]
        for _ in 0..<500 {
            texts.append(Bool.random(using: &generator) ? .text(UUID().lowercased) : .null)
            ints.append(.int(Int64.random(in: .min ... .max, using: &generator)))
            doubles.append(.double(Double.random(in: -180...180, using: &generator)))
        }
        let binds: [SQLValue] = [
            .column(SQLColumn(.text, texts)), .column(SQLColumn(.bigint, ints)),
            .column(SQLColumn(.float8, doubles)),
        ]
        try await IsolatedSchema.withDatabase(poolSize: 1) { database in
            for rows in [try await database.hotQuery(Self.sql, binds), try await database.query(Self.sql, binds)] {
                #expect(rows.count == texts.count)
                for (index, row) in rows.enumerated() {
                    #expect(row.values["t"] == texts[index])
                    #expect(row.values["i"] == ints[index])
                    let double = doubles[index] == .int(-7) ? .double(-7) : doubles[index]
                    #expect(row.values["d"] == double)
                }
            }
            #expect(try await database.query(Self.sql, binds).first.flatMap { $0.optionalDouble("d") }?.sign == .minus)
        }
    }

    @Test("empty columns and columns of NULLs only")
    func emptyAndNull() async throws {
        try await IsolatedSchema.withDatabase(poolSize: 1) { database in
            let empty: [SQLValue] = [
                .column(SQLColumn(.text, [])), .column(SQLColumn(.bigint, [])),
                .column(SQLColumn(.float8, [])),
            ]
            #expect(try await database.hotQuery(Self.sql, empty).isEmpty)
            let nulls: [SQLValue] = [
                .column(SQLColumn(.text, [.null, .null])), .column(SQLColumn(.bigint, [.null, .null])),
                .column(SQLColumn(.float8, [.null, .null])),
            ]
            let rows = try await database.hotQuery(Self.sql, nulls)
            #expect(rows.map { $0.isNull("t") && $0.isNull("i") && $0.isNull("d") } == [true, true])
        }
    }
}
