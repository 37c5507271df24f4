import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization

/// Why PostgreSQL gives the pool no connection. The pool retries a refused connection quietly, so an operation
/// only learns that no answer came in time; one connection of the probe's own brings back the server's words
/// ("password authentication failed for user …", "database … does not exist") or the socket's.
final class PostgresConnectProbe: Sendable {
    private let configuration: PostgresConnection.Configuration
    private let eventLoop: any EventLoop
    private let logger: Logger
    /// A database that is down is probed at most once in this long, however many operations time out.
    private static let spacing = Duration.seconds(10)
    private let lastProbe = Mutex<ContinuousClock.Instant?>(nil)

    init(
        client: PostgresClient.Configuration, tls: PostgresDatabase.TLSChoice, eventLoop: any EventLoop, logger: Logger
    ) throws {
        let connectionTLS: PostgresConnection.Configuration.TLS
        switch tls {
        case .require: connectionTLS = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .prefer: connectionTLS = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .disable: connectionTLS = .disable
        }
        var configuration = PostgresConnection.Configuration(
            host: client.host ?? "localhost", port: client.port ?? 5432, username: client.username,
            password: client.password, database: client.database, tls: connectionTLS)
        configuration.options.connectTimeout = .seconds(2)
        configuration.options.additionalStartupParameters = client.options.additionalStartupParameters
        self.configuration = configuration
        self.eventLoop = eventLoop
        self.logger = logger
    }

    /// What connecting says now; nil when it connects, or when another probe ran within `spacing`.
    func problem() async -> String? {
        let due = lastProbe.withLock { last in
            let now = ContinuousClock.now
            guard last.map({ now - $0 >= Self.spacing }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return nil }
        do {
            let connection = try await PostgresConnection.connect(
                on: eventLoop, configuration: configuration, id: 0, logger: logger)
            try? await connection.close()
            return nil
        } catch let error as PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return error.underlying.map { "\($0)" } ?? "\(error.code)"
        } catch {
            return "\(error)"
        }
    }
}
