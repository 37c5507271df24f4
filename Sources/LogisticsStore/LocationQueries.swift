import Foundation
import LogisticsCore

/// Where riders are: the fixes they send, and the newest one per rider for dispatch.
public protocol LocationRepository: Sendable {
    /// Stores the fixes and moves the rider's last known position forward (never backward: batches
    /// replayed after an outage may arrive out of order).
    /// Returns the order the rider is delivering, if any, so live tracking can follow the fixes.
    @discardableResult
    func recordFixes(_ fixes: [LocationFix], riderId: UUID, now: Date) async throws -> UUID?
    /// The newest fix of the rider a customer may be shown (accuracy of 100 m or better).
    func lastShowableFix(riderId: UUID) async throws -> LocationFix?
    /// The rider's newest usable position and when it was recorded, if any.
    func lastPosition(riderId: UUID) async throws -> (GeoPoint, Date)?
}

extension SQLLogisticsRepository: LocationRepository {
    public func lastPosition(riderId: UUID) async throws -> (GeoPoint, Date)? {
        guard
            let row = try await database.first(
                "SELECT last_lat, last_lon, last_fix_at FROM riders WHERE id = ? AND last_fix_at IS NOT NULL",
                [.uuid(riderId)])
        else { return nil }
        guard let lat = row.optionalDouble("last_lat"), let lon = row.optionalDouble("last_lon") else { return nil }
        return (GeoPoint(lat: lat, lon: lon), try row.date("last_fix_at"))
    }

    public func lastShowableFix(riderId: UUID) async throws -> LocationFix? {
        guard
            let row = try await database.first(
                """
                SELECT lat, lon, accuracy_m, speed_mps, heading_deg, recorded_at FROM rider_locations
                WHERE rider_id = ? AND (accuracy_m IS NULL OR accuracy_m <= 100)
                ORDER BY recorded_at DESC LIMIT 1
                """, [.uuid(riderId)]),
            let lat = row.optionalDouble("lat"), let lon = row.optionalDouble("lon")
        else { return nil }
        return LocationFix(
            lat: lat, lon: lon, accuracyM: row.optionalDouble("accuracy_m"), speedMps: row.optionalDouble("speed_mps"),
            headingDeg: row.optionalDouble("heading_deg"), recordedAt: try row.date("recorded_at"))
    }

    @discardableResult
    public func recordFixes(_ fixes: [LocationFix], riderId: UUID, now: Date) async throws -> UUID? {
        guard let newest = fixes.max(by: { $0.recordedAt < $1.recordedAt }) else { return nil }
        return try await database.transaction { transaction in
            let active = try await transaction.first(
                """
                SELECT id, order_id FROM tasks WHERE rider_id = ? AND status NOT IN ('DELIVERED', 'CANCELLED', 'FAILED')
                """, [.uuid(riderId)])
            let taskId = try active?.optionalUUID("id")
            let orderId = try active?.optionalUUID("order_id")
            for fix in fixes {
                try await transaction.query(
                    """
                    INSERT INTO rider_locations (rider_id, task_id, order_id, lat, lon, accuracy_m, speed_mps, heading_deg,
                        recorded_at, received_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .uuid(riderId), .uuid(taskId), .uuid(orderId), .double(fix.lat), .double(fix.lon),
                        .double(fix.accuracyM), .double(fix.speedMps), .double(fix.headingDeg), .date(fix.recordedAt),
                        .date(now),
                    ])
            }
            try await transaction.query(
                """
                UPDATE riders SET last_lat = ?, last_lon = ?, last_fix_at = ?
                WHERE id = ? AND (last_fix_at IS NULL OR last_fix_at < ?)
                """,
                [
                    .double(newest.lat), .double(newest.lon), .date(newest.recordedAt), .uuid(riderId),
                    .date(newest.recordedAt),
                ])
            return orderId
        }
    }
}
