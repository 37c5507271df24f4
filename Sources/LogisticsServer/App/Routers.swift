import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// The API's router: middleware outermost first, the open routes (pages, health, sign-in, provider callbacks), then
/// the authenticated `/api/v1` routes, each feature given only its own collaborators.
func makeRouter(_ components: ServerComponents, providers: ProviderSecrets) -> (
    Router<LogisticsRequestContext>, [RegisteredRoute]
) {
    let (configuration, repository, clock) = (components.configuration, components.repository, components.clock)
    let metrics = components.metrics
    let router = Router(context: LogisticsRequestContext.self)
    if let hsts = strictTransportSecurity(configuration) { router.add(middleware: hsts) }
    router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
    router.add(middleware: RequestIdMiddleware())
    router.add(middleware: AccessLogMiddleware())
    let catalog = RouteCatalog()
    router.add(middleware: ProblemMiddleware(catalog: catalog))
    router.add(middleware: WakeOnChangeMiddleware(signal: components.outboxWake))
    if let limit = addressLimit(components) { router.add(middleware: limit) }
    let idempotency = IdempotencyGuard(
        repository: repository, clock: clock, crashAfterCommit: configuration.crashAfterCommit)
    var operations = RouteTable(group: router.group(), prefix: "", idempotency: idempotency, catalog: catalog)
    OperationsRoutes(
        admission: components.admission, database: components.database, navigator: components.navigator,
        metrics: metrics
    ).register(in: &operations)
    MapTileRoutes(tiles: components.mapTiles).register(in: &operations)
    TrackingPage(
        linkAccess: components.linkAccess, snapshots: components.snapshots, riders: repository, otp: components.otp,
        outcome: TrackingOutcome(
            linkAccess: components.linkAccess, deliveries: repository, ratings: repository, blobs: components.blobs,
            clock: clock),
        tileServer: configuration.tileServer
    ).register(on: router, in: &operations)
    DispatchPage(tileServer: configuration.tileServer, phoneExample: configuration.signIn.phoneExample)
        .register(on: router)
    RiderPage(
        tileServer: configuration.tileServer, demo: configuration.riderAppDemo,
        phoneExample: configuration.signIn.phoneExample
    ).register(on: router)
    VendorPage(phoneExample: configuration.signIn.phoneExample).register(on: router)
    WebAssets.register(on: router)

    let api = router.group("/api/v1")
        .add(
            middleware: AuthenticationMiddleware(
                verifier: components.verifier, repository: repository, clock: clock, known: components.callerCache))
    if let limiter = components.callers.requests {
        api.add(middleware: CallerRateLimitMiddleware(limiter: limiter, clock: clock))
    }
    var routes = RouteTable(group: api, prefix: "/api/v1", idempotency: idempotency, catalog: catalog)
    let sessionEnding = SessionEnding(
        signIn: repository, callerCache: components.callerCache, revocationWatch: components.revocationWatch)
    let signIn = SignInRoutes(
        signIn: repository, people: repository, codes: components.signInCodes, issuer: components.tokens,
        settings: configuration.signIn, trustedProxies: Set(configuration.trustedProxies),
        publicURL: configuration.publicURL,
        addressLimiter: RateLimiter(
            RateRule(
                perSecond: Double(configuration.signIn.codeRequestsPerAddress) / 600,
                burst: Double(configuration.signIn.codeRequestsPerAddress)), what: "sign-in codes"),
        sessionEnding: sessionEnding, clock: clock)
    // Signing in needs no token: its routes sit beside the API's, outside the authentication middleware.
    var open = RouteTable(
        group: router.group("/api/v1"), prefix: "/api/v1", idempotency: idempotency, catalog: catalog)
    signIn.registerOpen(in: &open)
    TwilioReceiptRoutes(
        notifications: repository, publicAddress: configuration.publicAddress, authToken: providers.twilioAuthToken,
        clock: clock
    ).registerOpen(in: &open)
    WhatsAppWebhookRoutes(
        notifications: repository, appSecret: providers.whatsAppAppSecret, verifyToken: providers.whatsAppVerifyToken,
        clock: clock
    ).registerOpen(in: &open)
    signIn.register(in: &routes)
    PeopleRoutes(
        people: repository, riders: repository, signIn: repository, publicAddress: configuration.publicAddress,
        callerCache: components.callerCache, vehicles: components.vehicles, sessionEnding: sessionEnding, clock: clock
    ).register(in: &routes)
    OrderRoutes(
        orders: repository, stores: repository, ratings: repository, intake: components.intake,
        dispatcher: components.autoDispatcher, clock: clock
    ).register(in: &routes)
    RiderRoutes(riders: repository, clock: clock).register(in: &routes)
    RiderAdministrationRoutes(
        riders: repository, ratings: repository, callerCache: components.callerCache, sessionEnding: sessionEnding,
        clock: clock
    ).register(in: &routes)
    CustomerRoutes(
        lookup: components.orderLookup, riders: repository, otp: components.otp, tracking: components.snapshots
    ).register(in: &routes)
    PickupRoutes(
        lookup: components.orderLookup, orders: repository, undo: repository, riders: repository,
        locations: repository, ingest: components.ingest, navigator: components.navigator,
        vehicles: components.vehicles, clock: clock
    ).register(in: &routes)
    OfferRoutes(
        deliveries: repository, lookup: components.orderLookup, locations: repository,
        navigator: components.navigator, dispatcher: components.autoDispatcher, delivery: configuration.delivery,
        clock: clock
    ).register(in: &routes)
    MatrixRoutes(
        navigator: components.navigator, settings: configuration.dispatch,
        maxSnapDistanceM: configuration.routing.maxSnapDistanceM
    ).register(in: &routes)
    MatchRoutes(navigator: components.navigator, orders: repository, locations: repository).register(in: &routes)
    PlanRoutes(
        navigator: components.navigator, settings: configuration.dispatch,
        maxSnapDistanceM: configuration.routing.maxSnapDistanceM
    ).register(in: &routes)
    DispatcherDecisionRoutes(
        deliveries: repository, lookup: components.orderLookup, delivery: configuration.delivery,
        dispatcher: components.autoDispatcher, clock: clock
    ).register(in: &routes)
    OrderNotificationRoutes(outbox: repository, deliveries: repository, lookup: components.orderLookup).register(
        in: &routes)
    RiderTaskRoutes(
        deliveries: repository, locations: repository, navigator: components.navigator, etas: components.etas,
        vehicles: components.vehicles, delivery: configuration.delivery, clock: clock
    ).register(in: &routes)
    ProofOfDeliveryRoutes(
        deliveries: repository, orders: repository, blobs: components.blobs, otp: components.otp,
        geofenceRadiusM: configuration.delivery.geofenceRadiusM, clock: clock
    ).register(in: &routes)
    LocationRoutes(ingest: components.ingest, clock: clock).register(in: &routes)
    NavigationRoutes(
        navigator: components.navigator, deliveries: repository, orders: repository, locations: repository,
        vehicles: components.vehicles, clock: clock
    ).register(in: &routes)
    TrafficFeedRoutes(
        navigator: components.navigator, registry: metrics.registry, clock: clock,
        trafficExpiry: components.navigator.provider.trafficExpirySeconds ?? 600
    ).register(in: &routes)
    TrackingRoutes(
        lookup: components.orderLookup, linkStore: repository, links: components.trackingLinks,
        snapshots: components.snapshots, revocationWatch: components.revocationWatch,
        publicAddress: configuration.publicAddress, linkHoursAfterEnd: configuration.tracking.linkHoursAfterEnd,
        clock: clock
    ).register(in: &routes)
    DeviceRoutes(notifications: repository, clock: clock).register(in: &routes)
    WebhookRoutes(
        notifications: repository, sealer: components.secretSealer, environment: configuration.environment,
        clock: clock
    ).register(in: &routes)
    return (router, catalog.all)
}

/// WebSocket upgrades get their own small router: they authenticate with the subprotocol, not `Authorization`.
func makeSocketRouter(_ components: ServerComponents) -> Router<LogisticsRequestContext> {
    let router = Router(context: LogisticsRequestContext.self)
    if let hsts = strictTransportSecurity(components.configuration) { router.add(middleware: hsts) }
    router.add(middleware: RequestIdMiddleware())
    router.add(middleware: ProblemMiddleware(catalog: RouteCatalog()))
    if let limit = addressLimit(components) { router.add(middleware: limit) }
    let access = components.streamAccess
    TrackingSocket.register(
        in: router,
        opener: TrackingOpener(
            access: access, snapshots: components.snapshots, linkAccess: components.linkAccess,
            lookup: components.orderLookup))
    RiderStreamSocket.register(in: router, access: access, .init(access: access, ingest: components.ingest))
    DispatchStreamSocket.register(in: router, access: access, access)
    return router
}

/// One limiter per address for both routers, so socket upgrades and requests draw on the same allowance.
private func addressLimit(_ components: ServerComponents) -> AddressRateLimitMiddleware? {
    components.addressLimiter.map {
        AddressRateLimitMiddleware(
            limiter: $0, trustedProxies: Set(components.configuration.trustedProxies), clock: components.clock)
    }
}

/// Outermost on both routers, so nothing answers without it; only when the binary itself speaks TLS (behind a
/// proxy that terminates TLS, HSTS is the proxy's to send).
private func strictTransportSecurity(_ configuration: ServerConfiguration) -> StrictTransportSecurityMiddleware<
    LogisticsRequestContext
>? {
    configuration.tlsCertificateFile == nil ? nil : StrictTransportSecurityMiddleware()
}
