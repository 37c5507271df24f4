import Foundation

extension Vehicle {
    /// The speed a rider of this vehicle keeps up in town, in km/h, when it is slower than the router's road speeds;
    /// nil when the router's time stands (the road graph is the motorcycle's or the car's). A bicycle rides the
    /// motorcycle network's roads, but at its own pace.
    public var cruisingSpeedKmh: Double? {
        switch self {
        case .bicycle: 15
        case .motorcycle, .car: nil
        }
    }
}

/// How long a rider takes over a road route: the router's time (with its live and learned speeds), but never less
/// than the rider's vehicle needs for the route's length at its own cruising speed. The server has one road graph
/// (the motorcycle profile by default), so a bicycle rider would otherwise be timed as a motorbike: 60 s for a
/// kilometre of main road instead of four minutes. A rider whose vehicle is unknown keeps the router's time.
public enum RiderTravelTime {
    /// Seconds for the route, given the router's `roadSeconds` and the route's length; without a length (or with
    /// no vehicle speed to apply), the router's time.
    public static func seconds(roadSeconds: Double, distanceM: Double?, vehicle: Vehicle?) -> Double {
        guard let speed = vehicle?.cruisingSpeedKmh, speed > 0, let distanceM, distanceM > 0 else { return roadSeconds }
        return max(roadSeconds, distanceM * 3.6 / speed)
    }

    /// The same for a travel table's cell, where either may be missing (no path): nil stays nil.
    public static func seconds(ofCell roadSeconds: Double?, distanceM: Double?, vehicle: Vehicle?) -> Double? {
        roadSeconds.map { seconds(roadSeconds: $0, distanceM: distanceM, vehicle: vehicle) }
    }
}

extension RiderTravelTime {
    /// The route as the rider will ride it: its duration by the rule above, and every leg's and step's duration
    /// stretched by the same factor (a step's share of the time stays the router's), with `etaAt` moved to match.
    /// The geometry, distances, instructions and congestion are the road's and stay as they are.
    public static func timed(_ route: Route, vehicle: Vehicle?) -> Route {
        let seconds = seconds(roadSeconds: route.durationS, distanceM: route.distanceM, vehicle: vehicle)
        guard seconds > route.durationS, route.durationS > 0 else { return route }
        let factor = seconds / route.durationS
        var timed = route
        timed.durationS = seconds
        if let eta = RFC3339.date(from: route.etaAt) {
            timed.etaAt = RFC3339.string(from: eta.addingTimeInterval(seconds - route.durationS))
        }
        for leg in timed.legs.indices {
            timed.legs[leg].durationS *= factor
            for step in timed.legs[leg].steps.indices { timed.legs[leg].steps[step].durationS *= factor }
        }
        return timed
    }
}
