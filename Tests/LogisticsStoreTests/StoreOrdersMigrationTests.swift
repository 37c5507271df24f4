import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import Testing

@testable import TestSupport

/// Migration 28 on data of the schema before it: orders a dispatcher created for a registered store (its name, at
/// its place) become that store's; a namesake elsewhere and a one-off pickup stay as they were.
@Suite("Orders linked to the registered store they were for")
struct StoreOrdersMigrationTests {
    @Test("orders of a registered store's name and place are linked to it; others are not")
    func ordersFindTheirStore() async throws {
        let database = try await SQLiteDatabase.open(path: nil, logger: Logger(label: "test"))
        let migrator = Migrator(database: database, logger: Logger(label: "test"))
        try await migrator.migrate(through: 27)
        let (grimaldi, older, newer) = (UUID(), UUID(), UUID())
        try await database.query(
            """
            INSERT INTO vendors (id, name, address, lat, lon, created_at) VALUES
                (?, 'Boulangerie Grimaldi', '12 Rue Grimaldi', 43.7310, 7.4190, 1),
                (?, 'Café du Port', 'Quai Antoine 1er', 43.7350, 7.4230, 2),
                (?, 'Café du Port', 'Quai Antoine 1er', 43.7350, 7.4230, 3)
            """, [.uuid(grimaldi), .uuid(older), .uuid(newer)])
        let customer = UUID()
        try await database.query(
            "INSERT INTO customers (id, name, phone, created_at) VALUES (?, 'Priya', '+37793150001', 1)",
            [.uuid(customer)])
        // Name as the dispatcher typed it, pickup place, and the store it should end with.
        let cases: [(String, Double, Double, UUID?)] = [
            ("boulangerie grimaldi ", 43.7311, 7.4191, grimaldi),  // a few metres off, other case
            ("Boulangerie Grimaldi", 43.7400, 7.4190, nil),  // a kilometre away: another shop of that name
            ("Pharmacie du Rocher", 43.7310, 7.4190, nil),  // the same place, another name
            ("Café du Port", 43.7350, 7.4230, older),  // two registered namesakes: the older one
        ]
        var ids: [UUID] = []
        for (name, lat, lon, _) in cases {
            let id = UUID()
            ids.append(id)
            try await database.query(
                """
                INSERT INTO orders (id, created_by, vendor_name, vendor_address, vendor_lat, vendor_lon, customer_id,
                    customer_name, customer_phone, customer_address, customer_lat, customer_lon, pod_type, status,
                    created_at, updated_at)
                VALUES (?, ?, ?, 'typed', ?, ?, ?, 'Priya', '+37793150001', 'Quai', 43.73, 7.42, 'PHOTO',
                    'READY_FOR_PICKUP', 1, 1)
                """, [.uuid(id), .uuid(UUID()), .text(name), .double(lat), .double(lon), .uuid(customer)])
        }
        try await migrator.migrate()
        let repository = SQLLogisticsRepository(database: database, logger: Logger(label: "test"))
        for (index, id) in ids.enumerated() {
            let order = try #require(try await repository.order(id: id))
            #expect(order.vendorId == cases[index].3, "\(cases[index].0)")
        }
        let page = try await repository.listOrders(OrderFilter(vendorId: grimaldi), limit: 10, cursor: nil)
        #expect(page.orders.map(\.id) == [ids[0]])
        await database.close()
    }
}
