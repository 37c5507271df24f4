import LogisticsCore

/// On which side of the road the door is as the rider arrives: what the last instruction before arrival says ("your
/// destination is on the left"), so no instruction before the door speaks of having arrived.
public enum DestinationSide {
    /// A door closer to the road's end than this is straight ahead: its side would be noise of the map.
    static let besideRoadM = 5.0

    /// The arrive maneuver's modifier, as OSRM gives it: "left", "right", or "straight" when the door is ahead (or
    /// behind, or on the road itself). `arrivingBearing` is the direction the rider drives along the last piece.
    public static func modifier(arrivingBearing: Double, roadEnd: GeoPoint, door: GeoPoint) -> String {
        guard roadEnd.distanceM(to: door) >= besideRoadM else { return "straight" }
        let turn = Bearing.turn(from: arrivingBearing, to: Bearing.degrees(from: roadEnd, to: door))
        guard abs(turn) >= 20, abs(turn) <= 160 else { return "straight" }
        return turn > 0 ? "right" : "left"
    }

    /// The words for what lies ahead at the end of the route, before the rider is there.
    public static func ahead(modifier: String?) -> String {
        switch modifier {
        case "left", "slight left", "sharp left": "Your destination is on the left"
        case "right", "slight right", "sharp right": "Your destination is on the right"
        default: "Your destination is ahead"
        }
    }
}
