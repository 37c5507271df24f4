import Foundation
import Logging
import LogisticsCore
import LogisticsStore

/// The long-lived collaborators every route shares.
public struct LogisticsServices: Sendable {
    public let configuration: ServerConfiguration
    public let database: any SQLDatabase
    public let repository: any LogisticsRepository
    public let deliveries: any DeliveryRepository
    public let locations: any LocationRepository
    public let notifications: any NotificationRepository
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
    let ingest: LocationIngest
    let etas: EtaLedger
    let trackingLinks: TrackingLinks
    let accessWatch: AccessWatch
    let secretSealer: SecretSealer
    let knownCallers: KnownCallers
    let mapTiles: MapTileCache
    let metrics: RequestMetrics
    /// Shared by the API and socket routers (one allowance per client address).
    let addressLimiter: RateLimiter?
    /// Shared by API requests and socket messages (one allowance per caller), with the caps on open sockets.
    let callers: CallerLimits
    /// Present when automatic dispatch is on for some vendor: told of ready orders and declined offers.
    let autoDispatcher: AutoDispatcher?

    var databaseDialect: String { database.dialect.rawValue }
}
