import Foundation
import LogisticsCore
import RoadRouting
import Synchronization
import Threads

/// Each map's traffic customiser, made on first need (a structure build each, off the cooperative pool) and shared
/// by the background customisation and by routes for later departures.
public final class TrafficCustomisers: Sendable {
    private let made = Mutex<[RoutingProfile.Name: TrafficCustomiser]>([:])

    public init() {}

    /// The map's customiser if one has been made: a route request never pays for making it.
    public func existing(for map: RoadMap) -> TrafficCustomiser? { made.withLock { $0[map.profile] } }

    /// The map's customiser, made now if needed; `isNew` says it was. Nil when the map has no fastest-route
    /// hierarchy.
    func make(for map: RoadMap) async -> (customiser: TrafficCustomiser, isNew: Bool)? {
        if let existing = existing(for: map) { return (existing, false) }
        guard let customiser = await OwnThread.run({ TrafficCustomiser(map: map) }) else { return nil }
        made.withLock { $0[map.profile] = customiser }
        return (customiser, true)
    }
}
