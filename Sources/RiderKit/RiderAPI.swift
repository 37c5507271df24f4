import Foundation
import LogisticsCore
import NIOHTTP1

/// A typed client for every rider endpoint. Errors come back as `RiderAPIError`: a server's problem document
/// (with its `code`), or a transport failure (no connection, timeout) that is worth retrying.
public struct RiderAPI: Sendable {
    let connection: APIConnection
    public var baseURL: String { connection.baseURL }

    public init(
        baseURL: String, token: @escaping @Sendable () async throws -> String,
        transport: any RiderTransport = HTTPRiderTransport(), timeout: Duration = .seconds(10)
    ) {
        connection = APIConnection(baseURL: baseURL, token: token, transport: transport, timeout: timeout)
    }

    // MARK: Profile and offers

    public func me() async throws -> RiderProfile { try await call(.GET, "/api/v1/rider/me") }

    public func setAvailability(online: Bool) async throws -> RiderProfile {
        try await call(.PUT, "/api/v1/rider/availability", json: ["status": online ? "ONLINE" : "OFFLINE"])
    }

    public func offers() async throws -> [RiderOffer] {
        let list: OfferList = try await call(.GET, "/api/v1/rider/offers")
        return list.offers
    }

    /// One attempt at accepting; `RiderSession.accept` adds the requirement's single automatic retry.
    public func accept(offerId: String, timeout: Duration? = nil) async throws -> RiderTask {
        try await call(.POST, "/api/v1/rider/offers/\(offerId)/accept", timeout: timeout)
    }

    public func decline(offerId: String) async throws {
        let _: NoContent = try await call(.POST, "/api/v1/rider/offers/\(offerId)/decline")
    }

    // MARK: The task

    /// The rider's active task, or nil (404 NO_ACTIVE_TASK).
    public func activeTask() async throws -> RiderTask? {
        do {
            return try await call(.GET, "/api/v1/rider/tasks/active")
        } catch RiderAPIError.problem(let problem) where problem.code == "NO_ACTIVE_TASK" {
            return nil
        }
    }

    public func updateStatus(taskId: String, _ update: StatusUpdate) async throws -> RiderTask {
        try await call(
            .PATCH, "/api/v1/rider/tasks/\(taskId)/status", body: Array(try RiderJSON.encoder.encode(update)))
    }

    /// The customer's code as proof of delivery. `actionId` makes a resend after a lost answer harmless.
    public func submitDeliveryCode(
        taskId: String, code: String, capturedAt: Date, location: GeoPoint, actionId: UUID
    ) async throws {
        let body = Array(
            try RiderJSON.encoder.encode(OTPProof(value: code, capturedAt: capturedAt, location: location)))
        let _: NoContent = try await call(
            .POST, "/api/v1/rider/tasks/\(taskId)/pod", body: body,
            headers: ["Idempotency-Key": actionId.lowercased])
    }

    /// A photo as proof of delivery (JPEG, PNG, HEIC or WebP bytes).
    public func submitPhoto(
        taskId: String, photo: [UInt8], capturedAt: Date, location: GeoPoint, actionId: UUID
    ) async throws {
        let boundary = "riderkit-\(actionId.uuidString.prefix(8))"
        var body: [UInt8] = []
        let fields = [
            ("capturedAt", RFC3339.string(from: capturedAt)), ("lat", "\(location.lat)"), ("lon", "\(location.lon)"),
            ("accuracyM", "\(location.accuracyM ?? 10)"),
        ]
        for (name, value) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"pod\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                .utf8)
        body += photo + Array("\r\n--\(boundary)--\r\n".utf8)
        let _: NoContent = try await call(
            .POST, "/api/v1/rider/tasks/\(taskId)/pod", body: body,
            headers: [
                "Idempotency-Key": actionId.lowercased,
                "Content-Type": "multipart/form-data; boundary=\(boundary)",
            ])
    }

    public func reportIssue(taskId: String, type: String, note: String?, location: GeoPoint?, occurredAt: Date)
        async throws
    {
        var json: [String: Any] = ["type": type, "occurredAt": RFC3339.string(from: occurredAt)]
        if let note { json["note"] = note }
        if let location { json["location"] = ["lat": location.lat, "lon": location.lon] }
        let _: NoContent = try await call(.POST, "/api/v1/rider/tasks/\(taskId)/issues", json: json)
    }

    // MARK: Location and navigation

    @discardableResult
    public func sendLocations(_ fixes: [LocationFix]) async throws -> LocationReceipt {
        try await call(.POST, "/api/v1/rider/locations", body: Array(try RiderJSON.encoder.encode(["fixes": fixes])))
    }

    /// The route to the task's next stop (the store before pickup, the customer after).
    public func route(taskId: String, from: GeoPoint, headingDeg: Double? = nil) async throws -> Route {
        var path = "/api/v1/rider/tasks/\(taskId)/route?from=\(from.lat),\(from.lon)"
        if let headingDeg { path += "&heading=\(Int(headingDeg.rounded()) % 360)" }
        return try await call(.GET, path)
    }

    // MARK: Plumbing

    private struct OfferList: Decodable { var offers: [RiderOffer] }
    private struct OTPProof: Encodable {
        var type = "OTP"
        var value: String
        var capturedAt: Date
        var location: GeoPoint
    }

    func call<T: Decodable>(
        _ method: HTTPMethod, _ path: String, json: [String: Any]? = nil, body: [UInt8]? = nil,
        headers: [String: String] = [:], timeout: Duration? = nil
    ) async throws -> T {
        try await connection.call(method, path, json: json, body: body, headers: headers, timeout: timeout)
    }
}
