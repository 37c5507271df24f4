import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import LogisticsCore
import LogisticsServer
import LogisticsStore
import NIOCore
import Synchronization
import Testing

/// The real application, its clock, and helpers to talk to it like a client would: with its requests handed straight
/// to the router (`.router`), or over HTTP on an ephemeral port (`.live`).
struct TestServer: Sendable {
    /// How requests reach the application. Both run the application's background services (outbox, relay,
    /// housekeeping...) for the whole test, and both go through every middleware of the router.
    enum Mode: Sendable {
        /// No port: `send` hands each request to the router's responder in the test process. For tests that only
        /// make HTTP requests and read the answers.
        case router
        /// A real server on an ephemeral port, with the connection guards (slow clients, connection limits, TLS)
        /// and WebSocket upgrades in front of the router. For tests that use `port`: sockets, raw connections,
        /// RiderKit's transports, concurrent clients, a second connection of any kind.
        case live
    }

    let client: any TestClientProtocol
    let components: ServerComponents
    let clock: ManualWallClock
    let kind: StoreKind
    let routes: [RegisteredRoute]
    /// Tests that build a second application themselves run it `.live` and make their `TestServer` with this default.
    var mode: Mode = .live

    /// The live server's port. A test in router mode has none: asking for it fails the test (run it `.live`).
    var port: Int {
        if mode == .router {
            Issue.record("This test uses the server's port: run it with `mode: .live`")
        }
        return client.port ?? 0
    }
    var database: any SQLDatabase { components.database }
    var repository: SQLLogisticsRepository { components.repository }

    /// Builds the real application (migrations included) and runs `body` against it, its background services running.
    static func run(
        _ kind: StoreKind,
        mode: Mode = .router,
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (TestServer) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-test-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration.throwaway(directory: directory)
        configuration.tokens.jwtSecret = "test-secret-that-is-long-enough-for-production-use"
        var schema: IsolatedSchema? = nil
        if kind == .postgres, let url = StoreKind.postgresURL {
            schema = try await IsolatedSchema.create(url: url)
            configuration.database.url = url
            configuration.database.schema = schema?.name
            configuration.database.poolSize = 4
            // Many suites share one cluster on two cores; a slow moment is not an outage here.
            configuration.database.timeoutSeconds = 30
        }
        await MapFixture.imported()
        configure(&configuration)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let clock = ManualWallClock(Date())
        do {
            let built = try await buildApplication(configuration, clock: clock, logger: logger)
            let setup: TestingSetup =
                switch mode {
                case .router: .router
                case .live: .live
                }
            try await built.application.test(setup) { client in
                try await body(
                    TestServer(
                        client: client, components: built.components, clock: clock, kind: kind, routes: built.routes,
                        mode: mode))
            }
        } catch {
            await schema?.drop()
            throw error
        }
        await schema?.drop()
    }

    func token(_ role: Role, _ subject: UUID = UUID(), name: String? = nil) async throws -> String {
        try await components.tokens!.token(subject: subject, role: role, name: name, now: clock.now())
    }

    /// Sends a request; `json` is encoded as the body with `application/json` unless `raw` is given.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ path: String, token: String? = nil, json: Any? = nil, raw: Data? = nil,
        contentType: String? = nil, headers extra: [String: String] = [:]
    ) async throws -> Reply {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer? = nil
        if let json {
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]))
            headers[.contentType] = "application/json"
        }
        if let raw { body = ByteBuffer(bytes: raw) }
        if let contentType { headers[.contentType] = contentType }
        for (name, value) in extra { headers[HTTPField.Name(name)!] = value }
        let client = self.client
        let finalHeaders = headers
        let finalBody = body
        let response = try await Self.answered(within: .seconds(60), "\(method) \(path)") {
            try await client.execute(uri: path, method: method, headers: finalHeaders, body: finalBody)
        }
        return Reply(status: response.status.code, headers: response.headers, body: Data(buffer: response.body))
    }

    struct NoAnswer: Error, CustomStringConvertible {
        var description: String
    }

    /// Rows of a table, straight from the database, for checking that nothing changed.
    func count(_ table: String, _ condition: String = "1 = 1", _ binds: [SQLValue] = []) async throws -> Int {
        let row = try await database.first("SELECT COUNT(*) AS n FROM \(table) WHERE \(condition)", binds)
        return try row?.int("n") ?? 0
    }

    /// A request that never gets an answer fails the test with its name instead of hanging the whole run. The
    /// request runs unstructured so a stuck one (which may ignore cancellation) cannot hold the test.
    static func answered<T: Sendable>(
        within limit: Duration, _ what: String, _ request: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = Race<T>()
        return try await withCheckedThrowingContinuation { continuation in
            race.start(continuation)
            let work = Task {
                do {
                    race.finish(with: .success(try await request()))
                } catch {
                    race.finish(with: .failure(error))
                }
            }
            let deadline = Task {
                try await Task.sleep(for: limit)
                work.cancel()
                race.finish(with: .failure(NoAnswer(description: "\(what) got no answer within \(limit)")))
            }
            Task {
                _ = await work.result
                deadline.cancel()
            }
        }
    }

}

struct Reply: Sendable {
    let status: Int
    let headers: HTTPFields
    let body: Data

    var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:] }
    var text: String { String(decoding: body, as: UTF8.self) }
    var code: String? { json["code"] as? String }
    var contentType: String? { headers[.contentType] }
    subscript(_ key: String) -> Any? { json[key] }
}

/// Whichever of a request and its deadline finishes first resumes the caller; the other is ignored.
final class Race<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    func finish(with result: Result<T, any Error>) {
        let waiting = continuation.withLock { current in
            defer { current = nil }
            return current
        }
        waiting?.resume(with: result)
    }
}
