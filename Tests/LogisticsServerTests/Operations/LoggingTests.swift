import Foundation
import Logging
import LogisticsServer
import Synchronization
import Testing

@testable import LogisticsServer
@testable import TestSupport

@Suite("Logs: JSON lines for collectors, no secrets", .timeLimit(.minutes(3)))
struct LoggingTests {
    final class Lines: Sendable {
        let captured = Mutex<[[UInt8]]>([])
        var objects: [[String: Any]] {
            captured.withLock { $0 }.map {
                (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] ?? ["unparsable": $0]
            }
        }
    }

    @Test("every line is one JSON object: fixed fields, metadata, escaping, level filter")
    func jsonLines() throws {
        let lines = Lines()
        var logger = Logger(label: "orders") {
            JSONLogHandler(label: $0) { line in lines.captured.withLock { $0.append(line) } }
        }
        logger.logLevel = .info
        logger[metadataKey: "request_id"] = "r-1"
        logger.debug("filtered out")
        logger.info(
            "rider \"Asha\" said:\nहाँ\u{1}\t\\",
            metadata: [
                "order": .dictionary(["id": "o-7", "stops": .array(["store", "door"])]),
                "message": "shadowed", "attempt": .stringConvertible(3),
            ])
        logger.warning("slow webhook")

        let raw = lines.captured.withLock { $0 }
        #expect(raw.count == 2)
        #expect(raw.allSatisfy { $0.last == UInt8(ascii: "\n") && $0.dropLast().allSatisfy { $0 != 0x0A } })
        let objects = lines.objects
        let info = try #require(objects.first)
        #expect(info["level"] as? String == "info")
        #expect(info["logger"] as? String == "orders")
        #expect(info["message"] as? String == "rider \"Asha\" said:\nहाँ\u{1}\t\\")
        #expect(info["metadata.message"] as? String == "shadowed")
        #expect(info["request_id"] as? String == "r-1")
        #expect(info["attempt"] as? String == "3")
        let order = try #require(info["order"] as? [String: Any])
        #expect(order["id"] as? String == "o-7")
        #expect(order["stops"] as? [String] == ["store", "door"])
        #expect(info["location"] == nil)
        let time = try #require(info["time"] as? String)
        #expect(time.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression) != nil)
        let warning = try #require(objects.last)
        #expect((warning["location"] as? String)?.hasPrefix("LoggingTests.swift:") == true)
    }

    @Test("timestamps are UTC with milliseconds")
    func timestamps() {
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 1_795_500_000.0425)) == "2026-11-24T06:00:00.042Z")
    }

    @Test("format and level: JSON by default in production, text in development, bad values refused")
    func configuration() throws {
        let read = ServerConfiguration.fromEnvironment
        #expect(try read([:]).effectiveLogFormat == .text)
        #expect(try read(["LOGISTICS_ENV": "production"]).effectiveLogFormat == .json)
        #expect(try read(["LOGISTICS_ENV": "production", "LOGISTICS_LOG_FORMAT": "text"]).effectiveLogFormat == .text)
        #expect(try read(["LOGISTICS_LOG_FORMAT": "json", "LOG_LEVEL": "debug"]).logLevel == .debug)
        #expect(throws: ConfigurationError.self) { try read(["LOGISTICS_LOG_FORMAT": "xml"]) }
        #expect(throws: ConfigurationError.self) { try read(["LOG_LEVEL": "loud"]) }
    }

    @Test("the server's stderr is JSON lines; requests are logged by route template with their id, never the token")
    func serverLogs() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-logs-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(
            arguments: ["serve", "--port", "0", "--data-dir", directory.path],
            environment: [
                "LOGISTICS_JWT_SECRET": ProcessTests.secret, "LOGISTICS_LOG_FORMAT": "json", "LOG_LEVEL": "debug",
            ],
            captureStandardError: true)
        try await server.start()
        let token = "customers-secret-tracking-token-0123456789"
        let page = try await ConcurrentClient.send(port: server.port, .get, "/track/\(token)")
        #expect(page.status == 404)
        let health = try await ConcurrentClient.send(
            port: server.port, .get, "/health/live", headers: ["X-Request-Id": "probe-42"])
        #expect(health.status == 200)
        server.kill(SIGTERM)
        #expect(await server.waitForExit() == 0)

        let text = await server.standardErrorText()
        #expect(!text.contains(token))
        let lines = text.split(separator: "\n")
        #expect(!lines.isEmpty)
        let objects = lines.map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        for (line, object) in zip(lines, objects) {
            #expect(object?["time"] is String && object?["level"] is String && object?["message"] is String, "\(line)")
        }
        let requests = objects.compactMap { $0 }.filter { $0["message"] as? String == "request" }
        #expect(requests.contains { $0["route"] as? String == "/track/{token}" && $0["status"] as? String == "404" })
        #expect(
            requests.contains {
                $0["route"] as? String == "/health/live" && $0["request_id"] as? String == "probe-42"
                    && $0["duration_ms"] is String
            })
        // Without a map the server warns; warnings say where they were raised.
        #expect(objects.contains { $0?["level"] as? String == "warning" && $0?["location"] is String })
    }
}
