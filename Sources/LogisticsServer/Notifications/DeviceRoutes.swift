import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// `/api/v1/me/devices/{deviceId}`: where a rider's or customer's pushes go.
struct DeviceRoutes {
    let notifications: any NotificationRepository
    let clock: any WallClock

    func register(in routes: inout RouteTable) {
        routes.put("/me/devices/{deviceId}", register)
        routes.delete("/me/devices/{deviceId}", remove)
    }

    struct DeviceRequest: Decodable {
        var platform: DevicePlatform
        var pushToken: String
        var locale: String?
    }

    struct DeviceRepresentation: Encodable {
        var deviceId: String
        var platform: DevicePlatform
        var locale: String?
        var updatedAt: Date
    }

    @Sendable func register(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.rider, .customer)
        let deviceId = try Self.deviceId(context)
        let body = try await RequestBody.decode(DeviceRequest.self, from: request)
        var problems: [FieldError] = []
        let token = body.pushToken.trimmingCharacters(in: .whitespaces)
        if token.isEmpty || token.utf8.count > 4096 || token.contains(where: { $0.isWhitespace || $0 == "/" }) {
            problems.append(FieldError(field: "pushToken", message: "must be the provider's token (1–4096 characters)"))
        }
        if let locale = body.locale, !Self.isLocale(locale) {
            problems.append(FieldError(field: "locale", message: "must be a language tag such as en, hi-IN or mr"))
        }
        guard problems.isEmpty else { throw LogisticsError.validation(problems) }
        let device = try await notifications.registerDevice(
            RegisteredDevice(
                id: UUID(), ownerId: actor.id, ownerRole: actor.role, deviceId: deviceId, platform: body.platform,
                pushToken: token, locale: body.locale, updatedAt: clock.now()),
            now: clock.now())
        return try .json(
            DeviceRepresentation(
                deviceId: device.deviceId, platform: device.platform, locale: device.locale,
                updatedAt: device.updatedAt))
    }

    @Sendable func remove(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.rider, .customer)
        guard try await notifications.removeDevice(ownerId: actor.id, deviceId: try Self.deviceId(context))
        else { throw LogisticsError.notFound("device") }
        return APIResponse(status: .noContent, body: Data(), contentType: "application/json")
    }

    /// The app's own id for the install: short and URL-safe.
    static func deviceId(_ context: LogisticsRequestContext) throws -> String {
        // Clients may percent-encode ':' in a path segment; `a%3Ab` is the same install as `a:b`.
        guard let id = context.parameters.get("deviceId")?.removingPercentEncoding, (1...128).contains(id.count),
            id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.:".contains($0)) })
        else {
            throw LogisticsError.validation(field: "deviceId", "must be 1–128 letters, digits, '-', '_', '.' or ':'")
        }
        return id
    }

    static func isLocale(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "_", omittingEmptySubsequences: false)
        }
        guard let language = parts.first, (2...3).contains(language.count), text.count <= 35 else { return false }
        return parts.allSatisfy {
            !$0.isEmpty && $0.count <= 8 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }
}
