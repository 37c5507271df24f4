import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore
import RoadRouting

/// Offers: a dispatcher (or vendor) offers an order to riders; a rider sees their open offers and accepts or
/// declines one. Exactly one rider wins an order (RDR-BR-001), however many race.
struct OfferRoutes {
    let deliveries: any DeliveryRepository
    let lookup: OrderLookup
    let locations: any LocationRepository
    let navigator: Navigator
    let dispatcher: AutoDispatcher?
    let delivery: DeliverySettings
    let clock: any WallClock

    func register(in routes: inout RouteTable) {
        routes.post("/orders/{orderId}/offers", roles: [.vendor, .dispatcher, .admin], makeOffers)
        routes.get("/orders/{orderId}/offers", orderOffers)
        routes.get("/rider/offers", offers)
        routes.post("/rider/offers/{offerId}/accept", roles: [.rider], replay: .rerun, accept)
        routes.post("/rider/offers/{offerId}/decline", roles: [.rider], decline)
    }

    @Sendable func makeOffers(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.vendor, .dispatcher, .admin)
        let body = try await RequestBody.decode(MakeOffersRequest.self, from: request)
        let targets = try body.targets(roadTime: navigator.provider.roadTravelTime)
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canManage)
        let offers = try await deliveries.makeOffers(
            orderId: order.id, to: targets, ttl: TimeInterval(delivery.offerTTLSeconds), by: actor,
            now: clock.now())
        return try .json(OfferList(offers: offers.map { OfferRepresentation($0) }), status: .created)
    }

    /// Every offer made for the order and what became of it, for the dispatcher: an offer past its time that the
    /// sweeper has not yet marked is EXPIRED here already.
    @Sendable func orderOffers(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canView)
        let now = clock.now()
        let offers = try await deliveries.offers(orderId: order.id).map { offer, riderName in
            OrderOfferRepresentation(offer, riderName: riderName, now: now)
        }
        return try .json(["offers": offers])
    }

    @Sendable func offers(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        let now = clock.now()
        let open = try await deliveries.openOffers(riderId: rider.id, now: now)
        let here = try await locations.lastPosition(riderId: rider.id)?.0
        let distances = await OfferDistances(navigator: navigator).of(open, from: here, now: now)
        let offers = open.map { offer, order in
            var representation = OfferRepresentation(offer, order: order, now: now)
            representation.distances = distances[offer.id]
            return representation
        }
        return try .json(OfferList(offers: offers))
    }

    @Sendable func accept(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        let offerId = try context.uuidParameter("offerId")
        let (task, order) = try await deliveries.acceptOffer(
            offerId: offerId, by: rider, now: clock.now())
        return try .json(
            try await TaskRepresentation.forRider(task, order, deliveries: deliveries, delivery: delivery))
    }

    @Sendable func decline(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        let offerId = try context.uuidParameter("offerId")
        let offer = try await deliveries.declineOffer(
            offerId: offerId, riderId: rider.id, now: clock.now())
        dispatcher?.orderNeedsRider(offer.orderId)
        return try .json(OfferRepresentation(offer))
    }
}

struct OfferList: Encodable {
    var offers: [OfferRepresentation]
}
