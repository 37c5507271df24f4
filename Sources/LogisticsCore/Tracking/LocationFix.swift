import Foundation

/// One GPS fix from a rider's phone.
public struct LocationFix: Codable, Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public var accuracyM: Double?
    public var speedMps: Double?
    public var headingDeg: Double?
    public var recordedAt: Date

    public init(
        lat: Double, lon: Double, accuracyM: Double? = nil, speedMps: Double? = nil, headingDeg: Double? = nil,
        recordedAt: Date
    ) {
        self.lat = lat
        self.lon = lon
        self.accuracyM = accuracyM
        self.speedMps = speedMps
        self.headingDeg = headingDeg
        self.recordedAt = recordedAt
    }

    public var point: GeoPoint { GeoPoint(lat: lat, lon: lon, accuracyM: accuracyM) }

    public static let maximumBatch = 500
    /// Phones queue fixes while offline; older than this they no longer say where the rider is.
    public static let maximumAgeSeconds: TimeInterval = 24 * 3600

    /// The fields of this fix that are out of range; a batch with any of them is refused whole (400), so a
    /// phone with a broken GPS layer learns about it instead of silently losing fixes.
    public func validationErrors(field: String, now: Date) -> [FieldError] {
        var errors = point.validationErrors(field: field)
        if let speedMps, !speedMps.isFinite || speedMps < 0 || speedMps > 100 {
            errors.append(FieldError(field: "\(field).speedMps", message: "must be a finite number in 0...100"))
        }
        if let headingDeg, !headingDeg.isFinite || headingDeg < 0 || headingDeg >= 360 {
            errors.append(FieldError(field: "\(field).headingDeg", message: "must be a finite number in [0, 360)"))
        }
        if recordedAt.timeIntervalSince(now) > DeliveryRules.futureToleranceSeconds {
            errors.append(FieldError(field: "\(field).recordedAt", message: "must not be more than 2 minutes ahead"))
        }
        return errors
    }

    /// A valid fix too old to say where the rider is; it is counted as rejected, not stored.
    public func isTooOld(now: Date) -> Bool { now.timeIntervalSince(recordedAt) > Self.maximumAgeSeconds }

    /// Exact duplicates (a batch re-sent after a lost response) are recognised by this key.
    public var identity: FixIdentity { FixIdentity(recordedAt: recordedAt, lat: lat, lon: lon) }
}

public struct FixIdentity: Hashable, Sendable {
    public var recordedAt: Date
    public var lat: Double
    public var lon: Double
}
