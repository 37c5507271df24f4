import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import LogisticsCore
import LogisticsStore
import NIOCore
import ServiceLifecycle

/// The assembled service: the Hummingbird application and what tests need to look inside it.
public struct LogisticsApplication: Sendable {
    public let application: Application<RouterResponder<LogisticsRequestContext>>
    public let services: LogisticsServices
    public let routes: [RegisteredRoute]

    /// Returns once this instance receives other instances' tracking updates (at once without PostgreSQL).
    public func waitUntilTrackingIsShared() async {
        await (services.relay as? PostgresTrackingRelay)?.waitUntilListening()
    }
}

/// Builds the whole service from its configuration: opens and migrates the store, loads keys, and
/// wires routes and middleware. Tests call this directly.
public func buildApplication(
    _ configuration: ServerConfiguration,
    clock: any WallClock = SystemWallClock(),
    logger: Logger = Logger(label: "rider-logistics"),
    onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
) async throws -> LogisticsApplication {
    try configuration.checkListenAddress()
    let secret: String? =
        configuration.jwtPublicKeyFile == nil ? try JWTSecret.resolve(configuration, logger: logger) : nil
    let otpSecret =
        try configuration.otpSecret ?? secret
        ?? {
            throw ConfigurationError("LOGISTICS_OTP_SECRET is required when tokens are verified with a public key")
        }()
    let tls = try TLSIdentity.configured(configuration)
    // Files that do not merge into one document stop the start here rather than fail `/openapi.json` later.
    _ = try OpenAPIDocument.served.get()

    let location: StoreFactory.Location =
        if let url = configuration.databaseURL {
            .postgres(
                .init(
                    url: url, poolSize: configuration.databasePoolSize, schema: configuration.databaseSchema,
                    operationTimeout: .seconds(configuration.databaseTimeoutSeconds)))
        } else {
            .sqlite(path: configuration.inMemoryDatabase ? nil : configuration.sqlitePath)
        }
    let database = try await StoreFactory.open(location, logger: logger)
    do {
        if configuration.migrate {
            try await Migrator(database: database, logger: logger).migrate()
        }
        let otp = DeliveryOTP(serverSecret: Array(otpSecret.utf8))
        let repository = SQLLogisticsRepository(database: database, logger: logger)
        let sealer = SecretSealer(serverSecret: Array(otpSecret.utf8))
        try await WebhookSecrets.sealStored(repository: repository, sealer: sealer, logger: logger)
        let metrics = RequestMetrics()
        let directions = try await DirectionsSetup.provider(configuration, logger: logger)
        let navigator = Navigator(provider: directions, registry: metrics.registry, logger: logger)
        let hub = TrackingHub(staleAfterSeconds: TimeInterval(configuration.trackingStaleSeconds))
        // With PostgreSQL, several instances may serve one fleet: tracking updates cross over LISTEN/NOTIFY.
        let postgresRelay = (database as? PostgresDatabase).map {
            PostgresTrackingRelay(hub: hub, database: $0, schema: configuration.databaseSchema, logger: logger)
        }
        let relay: any TrackingRelay = postgresRelay ?? LocalTrackingRelay(hub: hub)
        // The watch that closes a suspended rider's sockets also makes this instance's API ask about them again.
        let knownCallers = KnownCallers()
        let etas = EtaLedger(repository: repository, navigator: navigator, registry: metrics.registry, logger: logger)
        let services = LogisticsServices(
            configuration: configuration, database: database, repository: repository, deliveries: repository,
            locations: repository, notifications: repository,
            blobs: FileBlobStore(directory: configuration.blobDirectory), clock: clock, otp: otp,
            signInCodes: SignInCodes(serverSecret: Array(otpSecret.utf8)),
            intake: OrderIntake(otp: otp),
            verifier: try await AccessTokenVerifier.make(configuration: configuration, secret: secret, clock: clock),
            tokens: secret == nil
                ? nil
                : await AccessTokenIssuer(
                    secret: secret!, issuer: configuration.jwtIssuer, audience: configuration.jwtAudience),
            navigator: navigator,
            tracking: hub,
            logger: logger,
            relay: relay,
            ingest: LocationIngest(
                repository: repository, relay: relay, navigator: navigator, etas: etas, clock: clock,
                fixesPerRider: configuration.rateLimits.fixesPerRider,
                commitsAtOnce: database.dialect == .postgres ? 2 : 1),
            etas: etas,
            trackingLinks: TrackingLinks(serverSecret: Array(otpSecret.utf8)),
            accessWatch: AccessWatch(
                repository: repository, logger: logger, now: { clock.now() },
                onSuspended: { knownCallers.forgetRider($0) }, onSessionEnded: { knownCallers.forgetSession($0) }),
            secretSealer: sealer,
            knownCallers: knownCallers,
            mapTiles: MapTileCache(provider: directions),
            metrics: metrics,
            addressLimiter: configuration.rateLimits.perAddress.map { RateLimiter($0, what: "requests") },
            callers: CallerLimits(configuration.rateLimits, clock: clock),
            autoDispatcher: configuration.dispatch.automatic == .off
                ? nil
                : AutoDispatcher(
                    repository: repository, navigator: navigator, settings: configuration.dispatch,
                    offerTTL: TimeInterval(configuration.offerTTLSeconds), clock: clock, registry: metrics.registry,
                    logger: logger))
        let twilioAuthToken = try configuration.textMessages.twilioAuthToken()
        let (senders, senderServices) = try await NotificationSetup.senders(
            configuration, twilioAuthToken: twilioAuthToken, clock: clock, sealer: sealer, logger: logger)
        let (router, routes) = makeRouter(services, twilioAuthToken: twilioAuthToken)
        let socketResponder = makeSocketRouter(services).buildResponder()
        let connections = ConnectionRegistry(
            limit: configuration.connectionLimits.perAddress, exempt: Set(configuration.trustedProxies))
        let application = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                GuardedChildChannel(
                    inner: SocketUpgradeChannel(responder: responder, socketResponder: socketResponder),
                    limits: configuration.connectionLimits, registry: connections, tls: tls)
            },
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "rider-logistics"),
            services: [
                DatabaseLifecycle(database: database),
                TrackingSweeper(hub: services.tracking, clock: clock),
                MemoryUpkeep(
                    ingest: services.ingest, etas: etas, verifier: services.verifier, knownCallers: knownCallers,
                    directions: directions, clock: clock, logger: logger),
                services.accessWatch,
                Housekeeping(
                    repository: repository, blobs: services.blobs, clock: clock, logger: logger,
                    policy: RetentionPolicy(
                        locationFixesDays: configuration.retainFixesDays, photosDays: configuration.retainPhotosDays,
                        personalDataDays: configuration.retainPersonalDataDays)),
                OutboxDispatcher(
                    repository: services.repository, deliveries: services.deliveries, notifications: repository,
                    channels: Set(senders.keys), subscribers: [TrackingEventFeed(relay: relay)],
                    clock: clock, logger: logger),
                NotificationDispatcher(
                    repository: repository, senders: senders, policies: NotificationSetup.policies(configuration),
                    clock: clock, registry: metrics.registry, logger: logger),
            ] + (postgresRelay.map { [$0] } ?? []) + (services.autoDispatcher.map { [$0] } ?? []) + senderServices
                + trafficRouting(
                    directions, repository: repository, configuration: configuration, clock: clock, metrics: metrics,
                    logger: logger)
                + (tls.map { [CertificateReloader(identity: $0, logger: logger)] } ?? []),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            eventLoopGroupProvider: .shared(ServerLoops.group),
            logger: logger)
        return LogisticsApplication(application: application, services: services, routes: routes)
    } catch {
        await database.close()
        throw error
    }
}

/// The built-in router's maps learn traffic; other providers route on their own data.
private func trafficRouting(
    _ directions: any DirectionsProvider, repository: any LearnedSpeedRepository, configuration: ServerConfiguration,
    clock: any WallClock, metrics: RequestMetrics, logger: Logger
) -> [any Service] {
    guard let builtin = directions as? BuiltinDirections else { return [] }
    let maps = Array(builtin.maps.values)
    let routing = TrafficRouting(
        maps: maps, customisers: builtin.customisers,
        interval: .milliseconds(configuration.trafficCustomiseMilliseconds),
        clock: clock, registry: metrics.registry, logger: logger)
    // Feed speeds still time routes without learning; folding them into route choice is the customiser's job.
    guard builtin.learnsTraffic else { return [routing] }
    return [
        TrafficLearning(
            trails: builtin.trails, maps: maps, interval: .milliseconds(configuration.trafficMatchMilliseconds),
            clock: clock),
        SpeedLearning(
            maps: maps, repository: repository,
            interval: .milliseconds(configuration.learnedSpeedsStoreMilliseconds), clock: clock, logger: logger),
        routing,
    ]
}

func makeRouter(_ services: LogisticsServices, twilioAuthToken: Redacted?) -> (
    Router<LogisticsRequestContext>, [RegisteredRoute]
) {
    let metrics = services.metrics
    let router = Router(context: LogisticsRequestContext.self)
    if let hsts = strictTransportSecurity(services) { router.add(middleware: hsts) }
    router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
    router.add(middleware: RequestIdMiddleware())
    router.add(middleware: AccessLogMiddleware())
    let catalog = RouteCatalog()
    router.add(middleware: ProblemMiddleware(catalog: catalog))
    if let limit = addressLimit(services) { router.add(middleware: limit) }
    let idempotency = IdempotencyGuard(
        repository: services.repository, clock: services.clock,
        crashAfterCommit: services.configuration.crashAfterCommit)
    var operations = RouteTable(group: router.group(), prefix: "", idempotency: idempotency, catalog: catalog)
    OperationsRoutes(services: services, metrics: metrics).register(in: &operations)
    MapTileRoutes(tiles: services.mapTiles).register(in: &operations)
    TrackingPage(services: services).register(on: router, in: &operations)
    DispatchPage(tileServer: services.configuration.tileServer).register(on: router)
    RiderPage(configuration: services.configuration).register(on: router)
    VendorPage().register(on: router)
    WebAssets.register(on: router)

    let api = router.group("/api/v1")
        .add(
            middleware: AuthenticationMiddleware(
                verifier: services.verifier, repository: services.repository, clock: services.clock,
                known: services.knownCallers))
    if let limiter = services.callers.requests {
        api.add(middleware: CallerRateLimitMiddleware(limiter: limiter, clock: services.clock))
    }
    var routes = RouteTable(group: api, prefix: "/api/v1", idempotency: idempotency, catalog: catalog)
    let sessionEnding = SessionEnding(
        signIn: services.repository, knownCallers: services.knownCallers, accessWatch: services.accessWatch)
    let signIn = SignInRoutes(
        signIn: services.repository, people: services.repository, codes: services.signInCodes,
        issuer: services.tokens, settings: services.configuration.signIn, configuration: services.configuration,
        addressLimiter: RateLimiter(
            RateRule(
                perSecond: Double(services.configuration.signIn.codeRequestsPerAddress) / 600,
                burst: Double(services.configuration.signIn.codeRequestsPerAddress)), what: "sign-in codes"),
        sessionEnding: sessionEnding, clock: services.clock)
    // Signing in needs no token: its routes sit beside the API's, outside the authentication middleware.
    var open = RouteTable(
        group: router.group("/api/v1"), prefix: "/api/v1", idempotency: idempotency, catalog: catalog)
    signIn.registerOpen(in: &open)
    TwilioReceiptRoutes(
        notifications: services.notifications, configuration: services.configuration,
        authToken: twilioAuthToken, clock: services.clock
    ).registerOpen(in: &open)
    signIn.register(in: &routes)
    PeopleRoutes(
        people: services.repository, riders: services.repository, signIn: services.repository,
        configuration: services.configuration, knownCallers: services.knownCallers, sessionEnding: sessionEnding,
        clock: services.clock
    ).register(in: &routes)
    OrderRoutes(
        orders: services.repository, intake: services.intake, dispatcher: services.autoDispatcher,
        clock: services.clock
    ).register(in: &routes)
    RiderRoutes(riders: services.repository, clock: services.clock).register(in: &routes)
    RiderAdministrationRoutes(
        riders: services.repository, knownCallers: services.knownCallers, sessionEnding: sessionEnding,
        clock: services.clock
    ).register(in: &routes)
    CustomerRoutes(
        lookup: services.orderLookup, riders: services.repository, otp: services.otp,
        tracking: TrackingSnapshots(services: services)
    ).register(in: &routes)
    OfferRoutes(
        deliveries: services.deliveries, lookup: services.orderLookup, locations: services.locations,
        navigator: services.navigator, dispatcher: services.autoDispatcher, configuration: services.configuration,
        clock: services.clock
    ).register(in: &routes)
    MatrixRoutes(
        navigator: services.navigator, settings: services.configuration.dispatch,
        maxSnapDistanceM: services.configuration.maxSnapDistanceM
    ).register(in: &routes)
    MatchRoutes(navigator: services.navigator, orders: services.repository, locations: services.locations).register(
        in: &routes)
    PlanRoutes(
        navigator: services.navigator, settings: services.configuration.dispatch,
        maxSnapDistanceM: services.configuration.maxSnapDistanceM
    ).register(in: &routes)
    DispatcherDecisionRoutes(
        deliveries: services.deliveries, lookup: services.orderLookup, configuration: services.configuration,
        dispatcher: services.autoDispatcher, clock: services.clock
    ).register(in: &routes)
    OrderNotificationRoutes(outbox: services.repository, lookup: services.orderLookup).register(in: &routes)
    RiderTaskRoutes(
        deliveries: services.deliveries, locations: services.locations, navigator: services.navigator,
        etas: services.etas,
        configuration: services.configuration, settings: services.deliverySettings, clock: services.clock
    ).register(in: &routes)
    ProofOfDeliveryRoutes(
        deliveries: services.deliveries, orders: services.repository, blobs: services.blobs, otp: services.otp,
        geofenceRadiusM: services.configuration.geofenceRadiusM, clock: services.clock
    ).register(in: &routes)
    LocationRoutes(ingest: services.ingest, clock: services.clock).register(in: &routes)
    NavigationRoutes(
        navigator: services.navigator, deliveries: services.deliveries, orders: services.repository,
        locations: services.locations, clock: services.clock
    ).register(in: &routes)
    TrafficFeedRoutes(
        navigator: services.navigator, registry: metrics.registry, clock: services.clock,
        trafficExpiry: (services.navigator.provider as? BuiltinDirections)?.maps.values.first?.traffic.expiry ?? 600
    ).register(in: &routes)
    TrackingRoutes(services: services).register(in: &routes)
    DeviceRoutes(notifications: services.notifications, clock: services.clock).register(in: &routes)
    WebhookRoutes(
        notifications: services.notifications, sealer: services.secretSealer,
        environment: services.configuration.environment, clock: services.clock
    ).register(in: &routes)
    return (router, catalog.all)
}

/// One limiter per address for both routers, so socket upgrades and requests draw on the same allowance.
func addressLimit(_ services: LogisticsServices) -> AddressRateLimitMiddleware? {
    services.addressLimiter.map {
        AddressRateLimitMiddleware(
            limiter: $0, trustedProxies: Set(services.configuration.trustedProxies), clock: services.clock)
    }
}

/// Outermost on both routers, so nothing answers without it; only when the binary itself speaks TLS (behind a
/// proxy that terminates TLS, HSTS is the proxy's to send).
func strictTransportSecurity(_ services: LogisticsServices) -> StrictTransportSecurityMiddleware<
    LogisticsRequestContext
>? {
    services.configuration.tlsCertificateFile == nil ? nil : StrictTransportSecurityMiddleware()
}

/// WebSocket upgrades get their own small router: they authenticate with the subprotocol, not `Authorization`.
func makeSocketRouter(_ services: LogisticsServices) -> Router<LogisticsRequestContext> {
    let router = Router(context: LogisticsRequestContext.self)
    if let hsts = strictTransportSecurity(services) { router.add(middleware: hsts) }
    router.add(middleware: RequestIdMiddleware())
    router.add(middleware: ProblemMiddleware(catalog: RouteCatalog()))
    if let limit = addressLimit(services) { router.add(middleware: limit) }
    TrackingSocket.register(in: router, services: services)
    RiderStreamSocket.register(in: router, services: services)
    DispatchStreamSocket.register(in: router, services: services)
    return router
}

/// Closes the database after the server has drained its in-flight requests.
struct DatabaseLifecycle: Service {
    let database: any SQLDatabase

    func run() async throws {
        try? await gracefulShutdown()
        await database.close()
    }
}
