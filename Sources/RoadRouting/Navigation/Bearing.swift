import Foundation
import LogisticsCore

/// Compass bearings between positions, and the turn between two bearings.
public enum Bearing {
    /// Initial great-circle bearing in degrees, 0 = north, clockwise, in [0, 360).
    public static func degrees(from: GeoPoint, to: GeoPoint) -> Double {
        let φ1 = from.lat * .pi / 180
        let φ2 = to.lat * .pi / 180
        let Δλ = (to.lon - from.lon) * .pi / 180
        let y = sin(Δλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(Δλ)
        let bearing = atan2(y, x) * 180 / .pi
        return (bearing + 360).truncatingRemainder(dividingBy: 360)
    }

    /// The turn from one bearing to another in (-180, 180]; positive is to the right.
    public static func turn(from incoming: Double, to outgoing: Double) -> Double {
        var angle = (outgoing - incoming).truncatingRemainder(dividingBy: 360)
        if angle > 180 { angle -= 360 }
        if angle <= -180 { angle += 360 }
        return angle
    }

    /// The absolute difference between two bearings, in [0, 180].
    public static func difference(_ a: Double, _ b: Double) -> Double { abs(turn(from: a, to: b)) }

    public static func cardinal(_ bearing: Double) -> String {
        let names = ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"]
        return names[Int(((bearing + 22.5) / 45).rounded(.down)) % 8]
    }
}
