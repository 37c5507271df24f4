import ArgumentParser
import Foundation
import HummingbirdWSClient
import Logging
import LogisticsCore

/// `logistics follow`: a customer's live-tracking stream in the terminal, one readable line per message.
struct Follow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow an order's live tracking (WS /api/v1/customer/orders/{id}/tracking) and print each message.")

    @Option(help: "The server, e.g. http://127.0.0.1:8080.") var server: String = "http://127.0.0.1:8080"
    @Option(help: "The order id.") var order: String
    @Option(help: "The customer's JWT or a tracking-link token (default: $CUSTOMER).") var token: String?

    func run() async throws {
        guard let token = token ?? ProcessInfo.processInfo.environment["CUSTOMER"], !token.isEmpty else {
            throw Console.failure("give --token or export CUSTOMER=<the customer's token>")
        }
        guard let url = URL(string: server), let host = url.host, url.scheme == "http" || url.scheme == "https" else {
            throw Console.failure("--server must look like http://127.0.0.1:8080")
        }
        let scheme = url.scheme == "https" ? "wss" : "ws"
        let port = url.port.map { ":\($0)" } ?? ""
        var configuration = WebSocketClientConfiguration()
        // The token travels as a subprotocol, never in the URL.
        configuration.additionalHeaders[.secWebSocketProtocol] = "bearer, \(token)"
        var logger = Logger(label: "follow")
        logger.logLevel = .critical
        Console.line("Following order \(order) on \(server) (Ctrl-C to stop) ...")
        do {
            let close = try await WebSocketClient.connect(
                url: "\(scheme)://\(host)\(port)/api/v1/customer/orders/\(order)/tracking",
                configuration: configuration, logger: logger
            ) { inbound, _, _ in
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message else { continue }
                    Console.line(Self.describe(text))
                }
            }
            Console.line("stream closed\(close.map { " (\($0.closeCode))" } ?? "")")
        } catch {
            throw Console.failure("cannot follow: \(error)")
        }
    }

    /// One line per message: what a person watching the map would want to read.
    static func describe(_ text: String) -> String {
        guard let message = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            return text
        }
        let seq = (message["seq"] as? Int).map { "#\($0) " } ?? ""
        func place(_ object: [String: Any]?) -> String {
            guard let object, let lat = object["lat"] as? Double, let lon = object["lon"] as? Double else {
                return "no position yet"
            }
            let accuracy = (object["accuracyM"] as? Double).map { String(format: " ±%.0f m", $0) } ?? ""
            return String(format: "%.5f,%.5f", lat, lon) + accuracy + " at \(object["recordedAt"] as? String ?? "?")"
        }
        switch message["type"] as? String {
        case "snapshot":
            let eta = (message["etaSeconds"] as? Int).map { ", ETA \($0) s" } ?? ""
            let remaining =
                (message["remainingDistanceM"] as? Double).map { String(format: ", %.0f m to go", $0) } ?? ""
            return "\(seq)snapshot: \(message["status"] ?? "?"), rider \(place(message["rider"] as? [String: Any]))"
                + eta + remaining + ((message["stale"] as? Bool) == true ? " (stale)" : "")
        case "location":
            return "\(seq)rider at \(place(message))"
        case "status":
            return "\(seq)status \(message["status"] ?? "?") at \(message["occurredAt"] ?? "?")"
        case "stale":
            return "\(seq)no fix for 15 s; last known at \(message["lastFixAt"] ?? "never")"
        case "ended":
            return "\(seq)ended: \(message["status"] ?? "?")"
        case "error":
            let problem = message["problem"] as? [String: Any]
            return "refused: \(problem?["code"] ?? "?") — \(problem?["detail"] ?? "")"
        default:
            return text
        }
    }
}
