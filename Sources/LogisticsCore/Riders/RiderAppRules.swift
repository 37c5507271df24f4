import Foundation

/// What a rider's app decides on the phone, before the server hears of it. RiderKit and the web app at `/rider`
/// (which gets these numbers from the page) use the same values, so a rider gets the same behaviour from both.
public enum RiderAppRules {
    /// RDR-018: asked before ARRIVED_AT_DESTINATION farther than the geofence radius from the customer.
    public static let arrivalQuestion = "You seem far from the destination. Are you sure you have arrived?"
    /// The requirement's radius; servers may configure another (`LOGISTICS_GEOFENCE_RADIUS_M`) and tell apps in
    /// each task's `geofenceRadiusM`.
    public static let defaultGeofenceRadiusM = 500.0
    /// Navigation shows "Searching for GPS signal" after this long without a fix.
    public static let gpsLostAfterSeconds: TimeInterval = 10
    /// Off the route by more than this (plus the fix's own uncertainty beyond 10 m) counts as off the route ...
    public static let offRouteDistanceM = 40.0
    /// ... and this many good fixes in a row off it ask the server for a new route.
    public static let offRouteFixes = 3

    public static func isFarFromDestination(
        _ location: GeoPoint, destination: GeoPoint, radiusM: Double = defaultGeofenceRadiusM
    ) -> Bool {
        location.distanceM(to: destination) > radiusM
    }
}
