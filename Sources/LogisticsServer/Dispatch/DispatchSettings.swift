import Foundation
import LogisticsCore

/// Automatic dispatch and the travel matrix, as configured.
public struct DispatchSettings: Sendable, Equatable {
    /// Whose orders are dispatched automatically.
    public enum Scope: Sendable, Equatable {
        case off
        case everyVendor
        /// Orders of these vendors (their token subjects) only.
        case vendors(Set<UUID>)
    }

    public var automatic: Scope = .off
    /// Offers an order gets from automatic dispatch before dispatchers are asked to take over.
    public var rounds: Int = 5
    /// How automatic dispatch ranks riders (road-time tie band, farthest rider it will ask).
    public var ranking = DispatchRanking()
    /// Batching (off by default): riders on a trip may be offered another order on the way, within these limits.
    public var batching: TripPlanner.Settings?
    /// The most orders one trip carries when batching is on.
    public var batchMaxOrders: Int = 2
    /// How often the dispatcher looks for orders it was not told about (other instances, lapsed offers).
    public var sweepSeconds: Double = 1
    /// The most sources or destinations `POST /api/v1/matrix` takes.
    public var matrixMaxLocations: Int = 1_000
    /// The most stops (jobs; shipments count two) `POST /api/v1/plans` plans in one request.
    public var planMaxTasks: Int = 1_000

    public init() {}

    /// The vendors whose orders automatic dispatch handles: nil for all of them.
    var vendors: Set<UUID>? {
        switch automatic {
        case .off: []
        case .everyVendor: nil
        case .vendors(let ids): ids
        }
    }

    /// `LOGISTICS_AUTO_DISPATCH` (`on`, `off`, or vendor ids separated by commas) and its tuning variables; batching
    /// is read before its delay, which only applies with it on.
    static var environment: [EnvironmentSetting<Self>] {
        [
            .custom("LOGISTICS_AUTO_DISPATCH") { settings, scope in
                switch scope.lowercased() {
                case "on", "true", "1": settings.automatic = .everyVendor
                case "off", "false", "0": settings.automatic = .off
                default:
                    let ids = scope.split(separator: ",").map {
                        UUID(uuidString: $0.trimmingCharacters(in: .whitespaces))
                    }
                    guard !ids.contains(nil) else {
                        throw ConfigurationError(
                            "LOGISTICS_AUTO_DISPATCH must be on, off, or vendor ids separated by commas, not \(scope)")
                    }
                    settings.automatic = .vendors(Set(ids.compactMap { $0 }))
                }
            },
            .whole("LOGISTICS_AUTO_DISPATCH_ROUNDS", \.rounds, in: 1...100),
            .whole("LOGISTICS_AUTO_DISPATCH_MAX_ROAD_SECONDS", \.ranking.maxRoadSeconds, in: 60...86_400),
            .whole("LOGISTICS_AUTO_DISPATCH_TIE_SECONDS", \.ranking.tieSeconds, in: 0...600),
            .custom("LOGISTICS_BATCHING") { settings, batching in
                switch batching.lowercased() {
                case "on", "true", "1": settings.batching = settings.batching ?? TripPlanner.Settings()
                case "off", "false", "0": settings.batching = nil
                default: throw ConfigurationError("LOGISTICS_BATCHING must be on or off, not \(batching)")
                }
            },
            EnvironmentSetting(name: "LOGISTICS_BATCH_MAX_DELAY_SECONDS") { settings, seconds in
                let limit = try wholeNumber(seconds, name: "LOGISTICS_BATCH_MAX_DELAY_SECONDS", in: 0...3_600)
                settings.batching?.maxDelaySeconds = Double(limit)
            },
            .whole("LOGISTICS_BATCH_MAX_ORDERS", \.batchMaxOrders, in: 2...4),
            .whole("LOGISTICS_PLAN_MAX_TASKS", \.planMaxTasks, in: 1...5_000),
            .whole("LOGISTICS_MATRIX_MAX_LOCATIONS", \.matrixMaxLocations, in: 1...10_000),
        ]
    }

    /// The line `logistics serve` prints at start.
    var summary: String {
        let scope =
            switch automatic {
            case .off: "off"
            case .everyVendor: "on for every vendor"
            case .vendors(let ids): "on for \(ids.count) vendor(s)"
            }
        let trips =
            batching.map {
                "batching up to \(batchMaxOrders) orders a trip, customers delayed at most \(Int($0.maxDelaySeconds)) s"
            } ?? "no batching"
        return "automatic \(scope); \(rounds) rounds, riders within \(Int(ranking.maxRoadSeconds)) s by road, "
            + "ties within \(Int(ranking.tieSeconds)) s go to the longest wait; \(trips)"
    }
}
