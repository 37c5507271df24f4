import AsyncHTTPClient
import Foundation
import LogisticsCore
import LogisticsServer

/// Looks for every acknowledged write in a restarted server, through the API a dispatcher uses.
struct CrashCheck {
    let port: Int
    let tokens: AccessTokenIssuer

    struct Findings {
        var orders = 0
        var acknowledged = 0
        /// Acknowledged writes not found: an order missing, behind its acknowledged status, or an event missing.
        var lost = 0
        var gaps = 0
        /// Orders whose status is not the one their newest status event names.
        var halfDone = 0

        var clean: Bool { lost == 0 && gaps == 0 && halfDone == 0 }
        var summary: String {
            "\(acknowledged) writes acknowledged on \(orders) orders, \(lost) lost, \(gaps) gaps, \(halfDone) half-done"
        }

        mutating func add(_ other: Findings) {
            orders += other.orders
            acknowledged += other.acknowledged
            lost += other.lost
            gaps += other.gaps
            halfDone += other.halfDone
        }
    }

    func check(_ journal: AcknowledgedWrites) async throws -> Findings {
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { Task { try? await http.shutdown() } }
        let client = BenchClient(http: http, base: "http://127.0.0.1:\(port)", recorder: nil)
        let dispatcher = try await tokens.token(subject: UUID(), role: .dispatcher, ttl: 3600)
        var findings = Findings()
        for (orderId, acknowledged) in journal.snapshot {
            findings.orders += 1
            findings.acknowledged += acknowledged.writes
            guard
                let order = try? await client.call(
                    "GET order", .GET, "/api/v1/orders/\(orderId)", token: dispatcher),
                let status = (order["status"] as? String).flatMap(OrderStatus.init(rawValue:))
            else {
                findings.lost += acknowledged.writes
                continue
            }
            // A status behind the acknowledged one counts once; the missing events below count the rest.
            if AcknowledgedWrites.progress(status) < AcknowledgedWrites.progress(acknowledged.status) {
                findings.lost += 1
            }
            let log = try await client.call("GET events", .GET, "/api/v1/orders/\(orderId)/events", token: dispatcher)
            let events = log["events"] as? [[String: Any]] ?? []
            let seqs = events.compactMap { $0["seq"] as? Int }
            if seqs != Array(1...max(1, seqs.count)) || seqs.isEmpty { findings.gaps += 1 }
            let ids = Set(events.compactMap { $0["eventId"] as? String })
            findings.lost += acknowledged.eventIds.filter { !ids.contains($0) }.count
            // Status events carry the order's status, or the task's (which names the order's) for a rider's tap.
            let newest = events.compactMap { $0["status"] as? String }.last.flatMap {
                OrderStatus(rawValue: $0) ?? TaskStatus(rawValue: $0)?.orderStatus
            }
            if newest != status {
                findings.halfDone += 1
                Console.line(
                    "    half-done: order \(orderId) is \(status.rawValue), its newest event says \(newest?.rawValue ?? "nothing")"
                )
            }
        }
        return findings
    }
}
