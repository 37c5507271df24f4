import Logging
import PostgresNIO
import Synchronization

/// The few statements run many times a second (the group commit's three, a rider's orders for ETAs), prepared once
/// per connection under a name so PostgreSQL parses and plans them once. Sent unnamed, as every other statement
/// is, each was parsed and planned again: under load planning was a large share of PostgreSQL's CPU, and took
/// many times longer than the two-table lookup it planned then ran. After five runs
/// PostgreSQL keeps a generic plan; for these statements it is the nested loop over the index that the custom
/// plans chose.
///
/// PostgresNIO names a prepared statement by a type, with its SQL and bind types static, so there is a fixed number
/// of slot types; a statement gets the next free slot the first time it runs and keeps it for the life of the
/// process. Past the last slot, or with a NULL bind (whose type PostgreSQL would have to guess), a statement runs
/// unnamed as before. PostgresNIO remembers a failed preparation on its connection for good, so after any error a
/// statement runs unnamed on that connection.
enum PostgresHotStatements {
    fileprivate struct Statement {
        var sql: String
        var types: [PostgresDataType]
    }

    private struct Registry {
        var slots: [String: Int] = [:]
        var statements: [Statement] = []
        /// Connections (by object) on which a slot's statement failed once.
        var failed: Set<Failure> = []
        /// Statements that found every slot taken, so each is logged once.
        var refused: Set<String> = []
    }

    private struct Failure: Hashable {
        var connection: ObjectIdentifier
        var slot: Int
    }

    private static let registry = Mutex(Registry())
    /// The server uses four; the rest leave room for new ones and for the tests, which share one process.
    static let slotCount = 16

    /// The slot holding this statement (as written, with `?` placeholders) with these bind types, taken now if it is
    /// new; nil when none is free, which is logged once per statement: it still runs, parsed and planned every time.
    /// The statement is numbered for PostgreSQL once, when it takes its slot, not on every run.
    static func slot(sql: String, types: [PostgresDataType], logger: Logger) -> Int? {
        let signature = types.map { String($0.rawValue) }.joined(separator: ",") + ";" + sql
        let (slot, firstRefusal) = registry.withLock { registry -> (Int?, Bool) in
            if let slot = registry.slots[signature] { return (slot, false) }
            guard registry.statements.count < slotCount else {
                guard registry.refused.count < 1_024 else { return (nil, false) }
                return (nil, registry.refused.insert(signature).inserted)
            }
            registry.statements.append(Statement(sql: sql.numberingPlaceholders(), types: types))
            registry.slots[signature] = registry.statements.count - 1
            return (registry.statements.count - 1, false)
        }
        if firstRefusal {
            logger.warning(
                "a frequent statement runs unprepared: all \(slotCount) prepared-statement slots are taken",
                metadata: ["sql": "\(sql.prefix(160))"])
        }
        return slot
    }

    static func hasFailed(slot: Int, on connection: PostgresConnection) -> Bool {
        registry.withLock { $0.failed.contains(Failure(connection: ObjectIdentifier(connection), slot: slot)) }
    }

    static func failed(slot: Int, on connection: PostgresConnection) {
        registry.withLock { registry in
            // Closed connections are never taken out; a database restarted often enough starts the set again, and a
            // statement whose preparation failed for good fails once more on its connection before running unnamed.
            if registry.failed.count >= 4_096 { registry.failed.removeAll() }
            registry.failed.insert(Failure(connection: ObjectIdentifier(connection), slot: slot))
        }
    }

    fileprivate static func statement(_ slot: Int) -> Statement { registry.withLock { $0.statements[slot] } }

    /// Runs slot `slot`'s statement on `connection`, preparing it there first if it is not yet.
    static func execute(
        slot: Int, bindings: PostgresBindings, on connection: PostgresConnection, logger: Logger
    ) async throws -> [PostgresRow] {
        switch slot {
        case 0: try await run(HotStatement<Slot0>(bindings: bindings), on: connection, logger: logger)
        case 1: try await run(HotStatement<Slot1>(bindings: bindings), on: connection, logger: logger)
        case 2: try await run(HotStatement<Slot2>(bindings: bindings), on: connection, logger: logger)
        case 3: try await run(HotStatement<Slot3>(bindings: bindings), on: connection, logger: logger)
        case 4: try await run(HotStatement<Slot4>(bindings: bindings), on: connection, logger: logger)
        case 5: try await run(HotStatement<Slot5>(bindings: bindings), on: connection, logger: logger)
        case 6: try await run(HotStatement<Slot6>(bindings: bindings), on: connection, logger: logger)
        case 7: try await run(HotStatement<Slot7>(bindings: bindings), on: connection, logger: logger)
        case 8: try await run(HotStatement<Slot8>(bindings: bindings), on: connection, logger: logger)
        case 9: try await run(HotStatement<Slot9>(bindings: bindings), on: connection, logger: logger)
        case 10: try await run(HotStatement<Slot10>(bindings: bindings), on: connection, logger: logger)
        case 11: try await run(HotStatement<Slot11>(bindings: bindings), on: connection, logger: logger)
        case 12: try await run(HotStatement<Slot12>(bindings: bindings), on: connection, logger: logger)
        case 13: try await run(HotStatement<Slot13>(bindings: bindings), on: connection, logger: logger)
        case 14: try await run(HotStatement<Slot14>(bindings: bindings), on: connection, logger: logger)
        default: try await run(HotStatement<Slot15>(bindings: bindings), on: connection, logger: logger)
        }
    }

    private static func run<Slot: HotSlot>(
        _ statement: HotStatement<Slot>, on connection: PostgresConnection, logger: Logger
    ) async throws -> [PostgresRow] {
        var rows: [PostgresRow] = []
        for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
        return rows
    }
}

private protocol HotSlot: Sendable { static var number: Int { get } }
private enum Slot0: HotSlot { static let number = 0 }
private enum Slot1: HotSlot { static let number = 1 }
private enum Slot2: HotSlot { static let number = 2 }
private enum Slot3: HotSlot { static let number = 3 }
private enum Slot4: HotSlot { static let number = 4 }
private enum Slot5: HotSlot { static let number = 5 }
private enum Slot6: HotSlot { static let number = 6 }
private enum Slot7: HotSlot { static let number = 7 }
private enum Slot8: HotSlot { static let number = 8 }
private enum Slot9: HotSlot { static let number = 9 }
private enum Slot10: HotSlot { static let number = 10 }
private enum Slot11: HotSlot { static let number = 11 }
private enum Slot12: HotSlot { static let number = 12 }
private enum Slot13: HotSlot { static let number = 13 }
private enum Slot14: HotSlot { static let number = 14 }
private enum Slot15: HotSlot { static let number = 15 }

private struct HotStatement<Slot: HotSlot>: PostgresPreparedStatement {
    typealias Row = PostgresRow

    static var name: String { "logistics_hot_\(Slot.number)" }
    static var sql: String { PostgresHotStatements.statement(Slot.number).sql }
    static var bindingDataTypes: [PostgresDataType] { PostgresHotStatements.statement(Slot.number).types }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
