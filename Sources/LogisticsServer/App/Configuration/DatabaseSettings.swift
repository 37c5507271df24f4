import Foundation

/// Where the store lives: SQLite in the data directory, or PostgreSQL.
public struct DatabaseSettings: Sendable, Equatable {
    /// A `postgres://` URL; nil means SQLite in the data directory.
    public var url: String?
    /// PostgreSQL schema to use (tests isolate themselves with one schema each).
    public var schema: String?
    public var poolSize: Int = 10
    /// How long a request waits for PostgreSQL before answering 503.
    public var timeoutSeconds: Int = 5
    /// A throwaway in-memory SQLite database (tests only).
    public var inMemory = false
    /// Apply pending migrations at start (`--no-migrate` turns it off).
    public var migrate = true

    public init() {}

    static var environment: [EnvironmentSetting<Self>] {
        [
            .text("DATABASE_URL", \.url),
            .custom("LOGISTICS_DATABASE_SCHEMA") { settings, schema in
                guard schema.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                    throw ConfigurationError("LOGISTICS_DATABASE_SCHEMA must be letters, digits and _, not \(schema)")
                }
                settings.schema = schema
            },
            .whole("LOGISTICS_DATABASE_POOL_SIZE", \.poolSize, in: 1...500),
            .whole("LOGISTICS_DATABASE_TIMEOUT_SECONDS", \.timeoutSeconds, in: 1...300),
        ]
    }
}
