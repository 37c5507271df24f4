import Foundation
import Logging
import LogisticsCore

/// The repository over either SQL dialect.
public struct SQLLogisticsRepository: LogisticsRepository {
    public let database: any SQLDatabase
    let logger: Logger

    public init(database: any SQLDatabase, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    public func ping() async throws { try await database.ping() }
}

extension SQLExecutor {
    /// `FOR UPDATE` where the dialect has row locks; SQLite's `BEGIN IMMEDIATE` already holds the write lock.
    var forUpdate: String { dialect == .postgres ? " FOR UPDATE" : "" }
    /// `FOR NO KEY UPDATE`: the lock an `UPDATE` of the row's other columns takes. Unlike `FOR UPDATE` it does not
    /// wait for the `FOR KEY SHARE` locks PostgreSQL takes on a row a foreign key points at, so two transactions
    /// that both wrote a reference to the row can still queue for it instead of deadlocking.
    var forNoKeyUpdate: String { dialect == .postgres ? " FOR NO KEY UPDATE" : "" }
}
