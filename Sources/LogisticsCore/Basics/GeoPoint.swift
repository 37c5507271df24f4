import Foundation

/// A WGS84 position as a rider's phone reports it.
public struct GeoPoint: Codable, Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public var accuracyM: Double?

    public init(lat: Double, lon: Double, accuracyM: Double? = nil) {
        self.lat = lat
        self.lon = lon
        self.accuracyM = accuracyM
    }

    /// Field errors for an out-of-range or non-finite position; empty when valid.
    public func validationErrors(field: String) -> [FieldError] {
        var errors: [FieldError] = []
        if !lat.isFinite || lat < -90 || lat > 90 {
            errors.append(FieldError(field: "\(field).lat", message: "must be a finite number between -90 and 90"))
        }
        if !lon.isFinite || lon < -180 || lon > 180 {
            errors.append(FieldError(field: "\(field).lon", message: "must be a finite number between -180 and 180"))
        }
        if let accuracyM, !accuracyM.isFinite || accuracyM < 0 {
            errors.append(FieldError(field: "\(field).accuracyM", message: "must be a finite number of at least 0"))
        }
        return errors
    }

    /// Great-circle distance in metres (haversine on a spherical Earth, good to ~0.5 %).
    public func distanceM(to other: GeoPoint) -> Double {
        let earthRadiusM = 6_371_008.8
        let φ1 = lat * .pi / 180
        let φ2 = other.lat * .pi / 180
        let Δφ = (other.lat - lat) * .pi / 180
        let Δλ = (other.lon - lon) * .pi / 180
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * earthRadiusM * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}

extension GeoPoint {
    /// Parses `lat,lon` as query strings and command lines write it; nil unless it is two numbers.
    /// Ranges are checked separately, with `validationErrors(field:)`.
    public init?(commaSeparated text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            Double($0.trimmingCharacters(in: .whitespaces))
        }
        guard parts.count == 2, let lat = parts[0], let lon = parts[1] else { return nil }
        self.init(lat: lat, lon: lon)
    }
}
