import Foundation
import HTTPTypes
import Hummingbird
import LogisticsCore
import LogisticsStore

/// `/api/v1/orders`: create, read, list, mark ready, cancel, and the event log.
struct OrderRoutes {
    let orders: any OrderRepository
    let stores: any PeopleRepository
    let ratings: any RatingRepository
    let intake: OrderIntake
    let dispatcher: AutoDispatcher?
    let clock: any WallClock

    private var lookup: OrderLookup { OrderLookup(orders: orders) }

    func register(in routes: inout RouteTable) {
        routes.post("/orders", roles: [.vendor, .dispatcher, .admin], replay: .createdOrder, create)
        routes.get("/orders", list)
        routes.get("/events", recentEvents)
        routes.get("/orders/{orderId}", show)
        routes.get("/orders/{orderId}/events", events)
        routes.get("/orders/{orderId}/events.csv", eventsCSV)
        routes.post("/orders/{orderId}/ready", roles: [.vendor, .dispatcher, .admin], ready)
        routes.post("/orders/{orderId}/cancel", roles: [], cancel)
    }

    @Sendable func create(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.vendor, .dispatcher, .admin)
        let body = try await RequestBody.decode(CreateOrderRequest.self, from: request)
        let errors = body.validationErrors()
        guard errors.isEmpty else { throw LogisticsError.validation(errors) }
        let podType = ProofOfDeliveryType.lenient(body.podType)
        if podType.wasUnknown {
            context.logger.warning(
                "unknown podType stored as PHOTO", metadata: ["podType": "\(body.podType?.prefix(40) ?? "")"])
        }
        let (vendorId, vendor) = try await pickup(of: body, by: actor)
        let newOrder = NewOrder(
            externalRef: body.externalRef, vendorId: vendorId, vendor: vendor, customer: body.customer,
            podType: podType.type, notes: body.notes, preparationMinutes: body.preparationMinutes)
        var generator = SystemRandomNumberGenerator()
        let now = clock.now()
        let order = intake.makeOrder(newOrder, id: UUID(), by: actor, now: now, generator: &generator)
        let stored = try await orders.createOrder(order, by: actor, now: now)
        return try .json(
            OrderRepresentation(stored), status: .created,
            location: "/api/v1/orders/\(stored.id.lowercased)")
    }

    /// Where the order is picked up, and the registered store it belongs to. A named store fills the pickup with
    /// its registered name and place, so its staff see the order whoever created it; a store's staff order for
    /// their own store alone, and need not repeat its address.
    private func pickup(of body: CreateOrderRequest, by actor: Actor) async throws -> (UUID?, VendorStop) {
        if actor.role == .vendor, let named = body.vendorId, named != actor.id {
            throw LogisticsError(.forbidden, "A store's staff order for their own store only")
        }
        let storeId = body.vendorId ?? (actor.role == .vendor && body.vendor == nil ? actor.id : nil)
        guard let storeId else {
            guard let vendor = body.vendor else {
                throw LogisticsError.validation(field: "vendor", "is required, or a registered store's vendorId")
            }
            return (nil, vendor)
        }
        guard let store = try await stores.vendor(id: storeId) else {
            if let vendor = body.vendor, actor.role == .vendor { return (storeId, vendor) }
            throw LogisticsError.validation(
                field: body.vendorId == nil ? "vendor" : "vendorId",
                body.vendorId == nil ? "is required: this store is not registered yet" : "is not a registered store")
        }
        return (store.id, VendorStop(name: store.name, address: store.address, location: store.location))
    }

    /// The parameters `GET /orders` reads; any other is refused rather than ignored (a typo must not show every order).
    static let listParameters: Set<String> = [
        "status", "open", "riderId", "vendorId", "createdFrom", "createdTo", "q", "limit", "cursor",
    ]

    /// Staff see every order; a store sees its own (the store's page), whatever `vendorId` it names.
    @Sendable func list(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.dispatcher, .admin, .vendor)
        try request.refuseUnknownQuery(allowed: Self.listParameters)
        var filter = OrderFilter(status: try request.queryValue("status", as: OrderStatus.self))
        filter.open = try request.queryBool("open")
        filter.riderId = try request.queryUUID("riderId")
        filter.vendorId = try request.queryUUID("vendorId")
        if actor.role == .vendor { filter.vendorId = actor.id }
        filter.createdFrom = try request.queryDate("createdFrom")
        filter.createdTo = try request.queryDate("createdTo")
        if let text = request.uri.queryParameters["q"].map(String.init) {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard (1...100).contains(trimmed.count) else {
                throw LogisticsError.validation(field: "q", "must be 1 to 100 characters")
            }
            filter.text = trimmed
        }
        let limit = try request.queryLimit(default: 50, range: 1...200)
        let page = try await orders.listOrders(
            filter, limit: limit, cursor: request.uri.queryParameters["cursor"].map(String.init))
        return try .json(
            OrderPageRepresentation(orders: page.orders.map { OrderRepresentation($0) }, nextCursor: page.nextCursor))
    }

    /// Every order's events from `since` (an hour ago unless told, at most a day back), oldest first: the
    /// dispatcher's feed as it was before the page was opened. An older `since` reads from a day back rather than
    /// failing: a page left open overnight still gets its feed.
    @Sendable func recentEvents(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        try request.refuseUnknownQuery(allowed: ["since", "limit"])
        let now = clock.now()
        let since = max(
            try request.queryDate("since") ?? now.addingTimeInterval(-3600), now.addingTimeInterval(-86_400))
        let limit = try request.queryLimit(default: 200, range: 1...1000)
        let events = try await orders.recentEvents(since: since, limit: limit).map { event, reference in
            FeedEventRepresentation(event: OrderEventRepresentation(event), externalRef: reference)
        }
        return try .json(["events": events])
    }

    @Sendable func show(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        // The order document carries the customer's full phone; riders see the order as their task, masked.
        let actor = try context.caller(.vendor, .customer, .dispatcher, .admin)
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canView)
        // The rating judges the rider's work: the dispatchers' to read, not the store's.
        let rating = actor.role.isStaff ? try await ratings.rating(orderId: order.id) : nil
        return try .json(OrderRepresentation(order, rating: rating))
    }

    @Sendable func events(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canView)
        let events = try await orders.events(orderId: order.id)
        return try .json(["events": events.map(OrderEventRepresentation.init)])
    }

    @Sendable func eventsCSV(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canView)
        let events = try await orders.events(orderId: order.id)
        var response = APIResponse(
            status: .ok, body: Data(OrderEventsCSV.render(events).utf8), contentType: "text/csv; charset=utf-8")
        response.extraHeaders[.contentDisposition] = "attachment; filename=\"order-\(order.id.lowercased)-events.csv\""
        return response
    }

    @Sendable func ready(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.vendor, .dispatcher, .admin)
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canManage)
        let updated = try await orders.markReady(orderId: order.id, by: actor, now: clock.now())
        dispatcher?.orderNeedsRider(updated.id)
        return try .json(OrderRepresentation(updated))
    }

    @Sendable func cancel(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller()
        let body = try await RequestBody.decode(CancelOrderRequest.self, from: request)
        if let reason = body.reason, reason.count > 500 {
            throw LogisticsError.validation(field: "reason", "must be at most 500 characters")
        }
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canView)
        guard OrderAccess.canCancel(order, actor) else {
            throw LogisticsError(.forbidden, "This order can no longer be cancelled by you")
        }
        let updated = try await orders.cancelOrder(
            orderId: order.id, reason: body.reason, by: actor, now: clock.now())
        return try .json(OrderRepresentation(updated))
    }
}
