import Foundation
import Logging

/// Opens the configured database and brings its schema up to date.
public enum StoreFactory {
    public enum Location: Sendable, Equatable {
        case sqlite(path: String?)
        case postgres(PostgresDatabase.Settings)
    }

    public static func open(_ location: Location, logger: Logger) async throws -> any SQLDatabase {
        switch location {
        case .sqlite(let path):
            if let path {
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            }
            return try await SQLiteDatabase.open(path: path, logger: logger)
        case .postgres(let settings):
            return try PostgresDatabase(settings: settings, logger: logger)
        }
    }
}

extension PostgresDatabase.Settings: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.url == rhs.url && lhs.poolSize == rhs.poolSize && lhs.schema == rhs.schema
    }
}
