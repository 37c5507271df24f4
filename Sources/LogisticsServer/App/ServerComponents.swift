import Foundation
import Logging
import LogisticsCore
import LogisticsStore

/// What `buildApplication` assembles once: the store, keys, the navigator, the tracking hub and the limits. The
/// routers and background services are built from it, and tests and the demo look inside a running server
/// through it; nothing below `App/` takes it whole: each route, page, socket and service is given its own
/// collaborators.
public struct ServerComponents: Sendable {
    public let configuration: ServerConfiguration
    public let database: any SQLDatabase
    /// The one store, whichever of its repositories a collaborator is given.
    public let repository: SQLLogisticsRepository
    public let blobs: any BlobStore
    public let clock: any WallClock
    public let otp: DeliveryOTP
    let signInCodes: SignInCodes
    public let intake: OrderIntake
    public let verifier: AccessTokenVerifier
    public let tokens: AccessTokenIssuer?
    public let navigator: Navigator
    public let tracking: TrackingHub
    public let logger: Logger
    let relay: any TrackingRelay
    /// The relay again when it crosses instances over PostgreSQL: a background service of its own.
    let postgresRelay: PostgresTrackingRelay?
    let ingest: LocationIngest
    let etas: EtaLedger
    /// What each rider rides, remembered for a few minutes: the ETAs and the store's view time riders by it.
    let vehicles: RiderVehicles
    let trackingLinks: TrackingLinks
    let revocationWatch: RevocationWatch
    let secretSealer: SecretSealer
    let callerCache: CallerCache
    let mapTiles: MapTileCache
    let metrics: RequestMetrics
    /// Shared by the API and socket routers (one allowance per client address).
    let addressLimiter: RateLimiter?
    /// Shared by API requests and socket messages (one allowance per caller), with the caps on open sockets.
    let callers: CallerLimits
    /// Present when automatic dispatch is on for some vendor: told of ready orders and declined offers.
    let autoDispatcher: AutoDispatcher?
    /// Rung by changes this instance made, so their events, pushes and texts go out without waiting for a poll.
    let outboxWake = WakeSignal()
    let notificationWake = WakeSignal()
}

extension ServerComponents {
    var admission: BearerAdmission {
        BearerAdmission(verifier: verifier, repository: repository, clock: clock, callerCache: callerCache)
    }

    var orderLookup: OrderLookup { OrderLookup(orders: repository) }

    var snapshots: TrackingSnapshots {
        TrackingSnapshots(
            hub: tracking, ingest: ingest, locations: repository, navigator: navigator, vehicles: vehicles, clock: clock
        )
    }

    var linkAccess: TrackingLinkAccess {
        TrackingLinkAccess(
            links: trackingLinks, orders: repository, linkStore: repository,
            hoursAfterEnd: configuration.tracking.linkHoursAfterEnd, clock: clock)
    }

    var streamAccess: StreamAccess {
        StreamAccess(
            admission: admission, callers: callers, revocationWatch: revocationWatch, hub: tracking, clock: clock,
            metrics: metrics, pingInterval: configuration.tracking.socketPing)
    }
}
