import Foundation
import LogisticsCore

extension SQLLogisticsRepository {
    public func createOrder(_ order: Order, by actor: Actor, now: Date) async throws -> Order {
        try await database.transaction { transaction in
            try await transaction.query(
                """
                INSERT INTO customers (id, name, phone, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, phone = excluded.phone
                """,
                [
                    .uuid(order.customer.id), .text(order.customer.name), .text(order.customer.phone),
                    .date(now),
                ])
            // A store known only by its token (a development link) is registered by its first order; a registered
            // store's name and place are the company's, never changed by an order.
            if actor.role == .vendor, order.vendorId == actor.id {
                try await transaction.query(
                    """
                    INSERT INTO vendors (id, name, address, lat, lon, created_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO NOTHING
                    """,
                    [
                        .uuid(actor.id), .text(order.vendor.name), .text(order.vendor.address),
                        .double(order.vendor.location.lat), .double(order.vendor.location.lon), .date(now),
                    ])
            }
            try await transaction.query(
                """
                INSERT INTO orders (id, external_ref, created_by, vendor_id, vendor_name, vendor_address, vendor_lat,
                    vendor_lon, customer_id, customer_name, customer_phone, customer_address, customer_lat,
                    customer_lon, pod_type, notes, status, otp_seed, otp_hash, expected_ready_at, created_at,
                    updated_at, customer_locale, customer_notify)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .uuid(order.id), .text(order.externalRef), .uuid(order.createdBy), .uuid(order.vendorId),
                    .text(order.vendor.name), .text(order.vendor.address), .double(order.vendor.location.lat),
                    .double(order.vendor.location.lon), .uuid(order.customer.id), .text(order.customer.name),
                    .text(order.customer.phone), .text(order.customer.address),
                    .double(order.customer.location.lat), .double(order.customer.location.lon),
                    .text(order.podType.rawValue), .text(order.notes), .text(order.status.rawValue),
                    .text(order.otpSeed), .text(order.otpHash), .date(order.expectedReadyAt), .date(order.createdAt),
                    .date(order.updatedAt), .text(order.customer.locale),
                    .text(order.customer.notify?.map(\.rawValue).joined(separator: ",")),
                ])
            try await EventLog(transaction: transaction).append(
                .init(
                    orderId: order.id, type: OrderEventType.orderCreated, status: order.status.rawValue,
                    occurredAt: now, receivedAt: now, actor: actor,
                    details: ["podType": order.podType.rawValue]),
                // The customer hears at once that the order is placed, with the link to follow it.
                notify: [
                    QueuedNotification.catalog(
                        NotificationKey.orderReceived, to: order.customer.id, role: .customer,
                        arguments: ["vendor": order.vendor.name])
                ])
            return order
        }
    }

    public func order(id: UUID) async throws -> Order? {
        try await database.first("SELECT * FROM orders WHERE id = ?", [.uuid(id)]).map(Order.init(row:))
    }

    public func markReady(orderId: UUID, by actor: Actor, now: Date) async throws -> Order {
        try await database.transaction { transaction in
            let order = try await lockedOrder(orderId, in: transaction)
            let status: OrderStatus
            var notifications: [QueuedNotification] = []
            switch order.status {
            case .readyForPickup,
                .riderAssigned where order.readyAt != nil:
                return order
            case .pendingVendorAcceptance, .preparing:
                status = .readyForPickup
            case .riderAssigned:
                // A rider was sent ahead on the preparation time: the order keeps its rider and its status, the
                // log and the rider learn that the goods are ready.
                status = .riderAssigned
                notifications =
                    order.assignedRiderId.map {
                        [
                            QueuedNotification.catalog(
                                NotificationKey.orderReady, to: $0, role: .rider,
                                arguments: ["vendor": order.vendor.name])
                        ]
                    } ?? []
            case .cancelled:
                throw LogisticsError(.orderCancelled, "The order was cancelled")
            default:
                throw LogisticsError.invalidTransition(
                    from: order.status, "Only an order still being prepared or waiting for pickup can be marked ready")
            }
            try await transaction.query(
                "UPDATE orders SET ready_at = ? WHERE id = ?", [.date(now), .uuid(orderId)])
            try await EventLog(transaction: transaction).append(
                .init(
                    orderId: orderId, type: OrderEventType.orderReady, status: status.rawValue, occurredAt: now,
                    receivedAt: now, actor: actor),
                settingOrderStatus: status, notify: notifications)
            return try await lockedOrder(orderId, in: transaction)
        }
    }

    public func cancelOrder(orderId: UUID, reason: String?, by actor: Actor, now: Date) async throws -> Order {
        try await database.transaction { transaction in
            let order = try await lockedOrder(orderId, in: transaction)
            if order.status == .cancelled { return order }
            if order.status.isFinal {
                throw LogisticsError.invalidTransition(
                    from: order.status, "A \(order.status.rawValue) order can no longer be cancelled")
            }
            try await transaction.query(
                "UPDATE orders SET status = 'CANCELLED', cancel_reason = ?, updated_at = ? WHERE id = ?",
                [.text(reason), .date(now), .uuid(orderId)])
            try await transaction.query(
                "UPDATE offers SET status = 'CANCELLED', closed_at = ? WHERE order_id = ? AND status = 'OPEN'",
                [.date(now), .uuid(orderId)])
            var notifications = [
                QueuedNotification.catalog(
                    NotificationKey.orderCancelled, to: order.customer.id, role: .customer,
                    arguments: ["by": Self.canceller(actor.role)])
            ]
            if let taskId = order.taskId, let riderId = order.assignedRiderId {
                try await transaction.query(
                    """
                    UPDATE tasks SET status = 'CANCELLED', updated_at = ?
                    WHERE id = ? AND status NOT IN \(TaskStatus.finalSQLList)
                    """, [.date(now), .uuid(taskId)])
                try await settleRider(riderId, at: now, in: transaction)
                notifications.append(
                    QueuedNotification.catalog(NotificationKey.deliveryCancelled, to: riderId, role: .rider))
            }
            try await EventLog(transaction: transaction).append(
                .init(
                    orderId: orderId, taskId: order.taskId, type: OrderEventType.orderCancelled,
                    status: OrderStatus.cancelled.rawValue, occurredAt: now, receivedAt: now, actor: actor,
                    details: reason.map { ["reason": $0] } ?? [:]),
                notify: notifications)
            return try await lockedOrder(orderId, in: transaction)
        }
    }

    public func listOrders(_ filter: OrderFilter, limit: Int, cursor: String?) async throws -> OrderPage {
        var conditions: [String] = []
        var binds: [SQLValue] = []
        if let status = filter.status {
            conditions.append("status = ?")
            binds.append(.text(status.rawValue))
        }
        if let open = filter.open {
            let ended = OrderStatus.allCases.filter(\.isFinal).map { "'\($0.rawValue)'" }.joined(separator: ", ")
            conditions.append("status \(open ? "NOT IN" : "IN") (\(ended))")
        }
        if let rider = filter.riderId {
            conditions.append("assigned_rider_id = ?")
            binds.append(.uuid(rider))
        }
        if let vendor = filter.vendorId {
            conditions.append("vendor_id = ?")
            binds.append(.uuid(vendor))
        }
        if let from = filter.createdFrom {
            conditions.append("created_at >= ?")
            binds.append(.date(from))
        }
        if let to = filter.createdTo {
            conditions.append("created_at < ?")
            binds.append(.date(to))
        }
        if let text = filter.text {
            // LIKE with the pattern's own wildcards escaped: a phone or reference is matched as typed.
            let escaped = text.lowercased().replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
            conditions.append(
                """
                (LOWER(COALESCE(external_ref, '')) LIKE ? ESCAPE '\\' OR LOWER(customer_name) LIKE ? ESCAPE '\\'
                    OR REPLACE(customer_phone, ' ', '') LIKE ? ESCAPE '\\')
                """)
            let phone = escaped.replacingOccurrences(of: " ", with: "")
            binds += [.text("%\(escaped)%"), .text("%\(escaped)%"), .text("%\(phone)%")]
        }
        if let cursor {
            guard let position = OrderCursor(encoded: cursor) else {
                throw LogisticsError.validation(field: "cursor", "is not a cursor this service issued")
            }
            conditions.append("(created_at < ? OR (created_at = ? AND id < ?))")
            binds += [.int(position.createdAtMillis), .int(position.createdAtMillis), .text(position.id)]
        }
        let clause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let rows = try await database.query(
            "SELECT * FROM orders \(clause) ORDER BY created_at DESC, id DESC LIMIT ?", binds + [.int(limit + 1)])
        let orders = try rows.prefix(limit).map(Order.init(row:))
        let next =
            rows.count > limit
            ? orders.last.map {
                OrderCursor(createdAtMillis: $0.createdAt.epochMillis, id: $0.id.lowercased).encoded
            }
            : nil
        return OrderPage(orders: orders, nextCursor: next)
    }

    public func recentEvents(since: Date, limit: Int) async throws -> [(OrderEvent, externalRef: String?)] {
        try await database.query(
            """
            SELECT e.*, o.external_ref AS order_external_ref FROM order_events e JOIN orders o ON o.id = e.order_id
            WHERE e.received_at >= ? ORDER BY e.received_at, e.order_id, e.seq LIMIT ?
            """, [.date(since), .int(limit)]
        ).map { (try OrderEvent(row: $0), $0.optionalString("order_external_ref")) }
    }

    public func events(orderId: UUID) async throws -> [OrderEvent] {
        try await database.query("SELECT * FROM order_events WHERE order_id = ? ORDER BY seq", [.uuid(orderId)])
            .map(OrderEvent.init(row:))
    }

    func lockedOrder(_ id: UUID, in transaction: any SQLExecutor) async throws -> Order {
        guard
            let row = try await transaction.first(
                "SELECT * FROM orders WHERE id = ?\(transaction.forUpdate)", [.uuid(id)])
        else { throw LogisticsError.notFound("order") }
        return try Order(row: row)
    }
}

/// Where the previous page ended: newest-first order of (created_at, id).
struct OrderCursor {
    var createdAtMillis: Int64
    var id: String

    /// `<createdAt ms>_<order id>`: URL-safe as it is, and a shape the OpenAPI document can state exactly.
    var encoded: String { "\(createdAtMillis)_\(id.lowercased())" }

    init(createdAtMillis: Int64, id: String) {
        self.createdAtMillis = createdAtMillis
        self.id = id
    }

    init?(encoded: String) {
        // Cursors handed out before the plain form were base64 of `<ms>|<id>`; a client paging then still can.
        let legacy = Data(base64Encoded: encoded).flatMap { String(data: $0, encoding: .utf8) }
        let parts = legacy?.split(separator: "|") ?? encoded.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, let millis = Int64(parts[0]), UUID(uuidString: String(parts[1])) != nil else {
            return nil
        }
        createdAtMillis = millis
        id = String(parts[1]).lowercased()
    }
}

extension SQLLogisticsRepository {
    /// Who cancelled, as the customer's text says it (`by.customer`, `by.vendor`, `by.staff` in the catalog).
    static func canceller(_ role: Role) -> String {
        switch role {
        case .customer: "customer"
        case .vendor: "vendor"
        default: "staff"
        }
    }
}

extension Order {
    init(row: SQLRow) throws {
        self.init(
            id: try row.uuid("id"),
            externalRef: row.optionalString("external_ref"),
            createdBy: try row.uuid("created_by"),
            vendorId: try row.optionalUUID("vendor_id"),
            vendor: VendorStop(
                name: try row.string("vendor_name"), address: try row.string("vendor_address"),
                location: GeoPoint(
                    lat: row.optionalDouble("vendor_lat") ?? 0, lon: row.optionalDouble("vendor_lon") ?? 0)),
            customer: CustomerContact(
                id: try row.uuid("customer_id"), name: try row.string("customer_name"),
                phone: try row.string("customer_phone"), address: try row.string("customer_address"),
                location: GeoPoint(
                    lat: row.optionalDouble("customer_lat") ?? 0, lon: row.optionalDouble("customer_lon") ?? 0),
                locale: row.optionalString("customer_locale"),
                notify: row.optionalString("customer_notify").flatMap(CustomerChannel.list)),
            podType: ProofOfDeliveryType(rawValue: try row.string("pod_type")) ?? .photo,
            notes: row.optionalString("notes"),
            status: OrderStatus(rawValue: try row.string("status")) ?? .cancelled,
            assignedRiderId: try row.optionalUUID("assigned_rider_id"),
            taskId: try row.optionalUUID("task_id"),
            otpSeed: row.optionalString("otp_seed"),
            otpHash: row.optionalString("otp_hash"),
            cancelReason: row.optionalString("cancel_reason"),
            expectedReadyAt: row.optionalDate("expected_ready_at"),
            readyAt: row.optionalDate("ready_at"),
            createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"))
    }
}

extension OrderEvent {
    init(row: SQLRow) throws {
        let location: GeoPoint? =
            if let lat = row.optionalDouble("lat"), let lon = row.optionalDouble("lon") {
                GeoPoint(lat: lat, lon: lon, accuracyM: row.optionalDouble("accuracy_m"))
            } else { nil }
        let details = try JSONDecoder().decode([String: String].self, from: Data(try row.string("details").utf8))
        self.init(
            id: try row.uuid("id"), orderId: try row.uuid("order_id"), taskId: try row.optionalUUID("task_id"),
            seq: try row.int("seq"), type: try row.string("type"), status: row.optionalString("status"),
            occurredAt: try row.date("occurred_at"), receivedAt: try row.date("received_at"), location: location,
            actorId: try row.uuid("actor_id"), actorRole: Role(rawValue: try row.string("actor_role")) ?? .admin,
            geofenceDistanceM: row.optionalDouble("geofence_distance_m"),
            geofenceOverride: row.bool("geofence_override"), details: details)
    }
}
