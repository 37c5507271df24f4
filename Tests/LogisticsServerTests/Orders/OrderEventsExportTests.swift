import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

@Suite("An order's event log as CSV", .timeLimit(.minutes(3)))
struct OrderEventsExportTests {
    @Test(
        "a dispatcher downloads the same events as the JSON log, one row each, in order", arguments: StoreKind.available
    )
    func export(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            try await scenario.arrive(taskId, rider: rider)
            let json = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/events", token: scenario.dispatcher)
            let events = try #require(json["events"] as? [[String: Any]])

            let csv = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/events.csv", token: scenario.dispatcher)
            #expect(csv.status == 200)
            #expect(csv.contentType == "text/csv; charset=utf-8")
            #expect(
                csv.headers[.contentDisposition]
                    == "attachment; filename=\"order-\(scenario.orderId)-events.csv\"")
            let rows = csv.text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(rows.first == OrderEventsCSV.header.joined(separator: ","))
            #expect(rows.count == events.count + 1)
            for (row, event) in zip(rows.dropFirst(), events) {
                let cells = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                #expect(cells[0] == "\(event["seq"] as? Int ?? -1)")
                #expect(cells[1] == event["eventId"] as? String)
                #expect(cells[2] == event["type"] as? String)
            }
        }
    }

    @Test("riders, customers and vendors may not download it; an unknown order is 404", arguments: StoreKind.available)
    func refused(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let path = "/api/v1/orders/\(scenario.orderId)/events.csv"
            #expect(try await server.send(.get, path, token: scenario.customer).status == 403)
            #expect(try await server.send(.get, path, token: try await server.token(.rider)).status == 403)
            #expect(try await server.send(.get, path).status == 401)
            let unknown = try await server.send(
                .get, "/api/v1/orders/\(UUID().lowercased)/events.csv", token: scenario.dispatcher)
            #expect(unknown.status == 404)
            #expect(unknown.contentType == "application/problem+json")
        }
    }

    @Test("cells are quoted as RFC 4180 says, and typed text cannot become a spreadsheet formula")
    func quoting() {
        #expect(OrderEventsCSV.cell("plain") == "plain")
        #expect(OrderEventsCSV.cell("a,b") == "\"a,b\"")
        #expect(OrderEventsCSV.cell("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(OrderEventsCSV.cell("two\nlines") == "\"two\nlines\"")
        #expect(OrderEventsCSV.cell("=HYPERLINK(\"http://x\")") == "\"'=HYPERLINK(\"\"http://x\"\")\"")
        #expect(OrderEventsCSV.cell("@SUM(A1)") == "'@SUM(A1)")
        #expect(OrderEventsCSV.cell("-73.98") == "-73.98")
        #expect(OrderEventsCSV.cell("-1+1") == "'-1+1")
    }
}
