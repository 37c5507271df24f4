import AsyncHTTPClient
import Foundation
import Logging
import LogisticsCore
import LogisticsServer
import RiderKit
import RoadRouting

/// Automatic dispatch end to end on an in-process server (SQLite, the map loaded): riders online all over the map,
/// orders made ready one after another through the API; the time from sending `POST …/ready` to the offer's row
/// being committed, read by polling the database every 2 ms.
enum AutoDispatchLatency {
    static func measure(map: String, roadMap: RoadMap, riders: Int, orders: Int) async throws {
        Console.line("== automatic dispatch: \(riders) riders online, \(orders) orders made ready one after another")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-bench-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = InProcessServer.configuration(directory: directory)
        configuration.routing.mapPath = map
        configuration.delivery.offerTTLSeconds = 3600
        configuration.dispatch.automatic = .everyVendor
        let logger = InProcessServer.logger
        let (ports, reporter) = AsyncStream.makeStream(of: Int.self)
        let built = try await buildApplication(configuration, logger: logger) { port in
            reporter.yield(port)
            reporter.finish()
        }
        let database = built.components.database
        let graph = roadMap.graph
        let nodes = graph.routableNodes
        var random = SeededGenerator(state: 9)
        let now = Date()
        for index in 0..<riders {
            let position = graph.coordinate(nodes.randomElement(using: &random)!)
            try await database.query(
                """
                INSERT INTO riders (id, name, availability, last_lat, last_lon, last_fix_at, free_since, created_at,
                    updated_at)
                VALUES (?, ?, 'ONLINE', ?, ?, ?, ?, ?, ?)
                """,
                [
                    .uuid(UUID()), .text("Bench rider \(index + 1)"), .double(position.lat), .double(position.lon),
                    .date(now), .date(now.addingTimeInterval(-Double(index))), .date(now), .date(now),
                ])
        }
        let stores = (0..<orders).map { _ in graph.coordinate(nodes.randomElement(using: &random)!) }
        let homes = (0..<orders).map { _ in graph.coordinate(nodes.randomElement(using: &random)!) }
        let token = try await AccessTokenIssuer(secret: configuration.tokens.jwtSecret!).token(
            subject: UUID(), role: .dispatcher, now: Date())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await built.application.runService() }
            for await port in ports {
                let http = HTTPClient(eventLoopGroupProvider: .singleton)
                let office = OfficeAPI(
                    baseURL: "http://127.0.0.1:\(port)", token: { token }, transport: HTTPRiderTransport(http: http),
                    timeout: .seconds(30))
                var latencies: [Double] = []
                var missed = 0
                for index in 0..<orders {
                    let placed = try await office.placeOrder(
                        ref: "DISPATCH-\(index)",
                        from: VendorStop(name: "Bench store \(index)", address: "Monaco", location: stores[index]),
                        to: CustomerContact(
                            id: UUID(), name: "Bench customer", phone: "+377 93 15 00 01", address: "Monaco",
                            location: homes[index]))
                    guard let orderId = UUID(uuidString: placed) else {
                        throw Console.failure("an order was created without an id")
                    }
                    let start = DispatchTime.now().uptimeNanoseconds
                    try await office.markReady(orderId: orderId.lowercased)
                    var offered = false
                    while DispatchTime.now().uptimeNanoseconds - start < 5_000_000_000 {
                        if try await database.first("SELECT 1 FROM offers WHERE order_id = ?", [.uuid(orderId)]) != nil
                        {
                            offered = true
                            break
                        }
                        try await Task.sleep(for: .milliseconds(2))
                    }
                    if offered {
                        latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                    } else {
                        missed += 1
                    }
                    if (index + 1) % 50 == 0 { Console.line("  \(index + 1) of \(orders) orders offered") }
                }
                Console.line(
                    "  ready → offer committed: \(RoutingBench.summary(latencies)); \(missed) orders not offered "
                        + "within 5 s (target: p95 ≤ 100 ms)")
                try await http.shutdown()
                group.cancelAll()
            }
        }
    }
}
