import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import LogisticsCore
import LogisticsStore
import NIOCore

/// `Idempotency-Key` on POST: the same key and body replay the first response; the same key with a
/// different body is refused with 422 IDEMPOTENCY_KEY_REUSED.
struct IdempotencyGuard: Sendable {
    let repository: any LogisticsRepository
    let clock: any WallClock

    func run(
        _ request: Request, context: LogisticsRequestContext, bodyLimit: Int,
        handler: @Sendable (Request, LogisticsRequestContext) async throws -> APIResponse
    ) async throws -> APIResponse {
        guard let key = request.headers[.idempotencyKey] else { return try await handler(request, context) }
        guard !key.isEmpty, key.count <= 255 else {
            throw LogisticsError.validation(field: "Idempotency-Key", "must be 1 to 255 characters")
        }
        var request = request
        let body = try await RequestBody.collect(&request, limit: bodyLimit)
        request.body = .init(buffer: body)
        var hasher = SHA256()
        hasher.update(data: Array("\(request.method.rawValue) \(request.uri.path)\n".utf8))
        hasher.update(data: Array(buffer: body))
        let requestHash = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        let principal = context.actor.map { "\($0.role.rawValue):\($0.id.uuidString.lowercased())" } ?? "anonymous"

        switch try await repository.beginIdempotent(
            principal: principal, key: key, requestHash: requestHash, now: clock.now())
        {
        case .replay(let stored):
            var response = APIResponse(
                status: .init(code: stored.status), body: Data(stored.body.utf8), contentType: stored.contentType,
                location: stored.location)
            response.extraHeaders[HTTPField.Name("Idempotent-Replayed")!] = "true"
            return response
        case .mismatch:
            throw LogisticsError(.idempotencyKeyReused, "Idempotency-Key \(key) was first used with a different body")
        case .inProgress:
            throw LogisticsError(
                .idempotencyRequestInProgress, "A request with this Idempotency-Key is still running",
                retryAfterSeconds: 1)
        case .proceed:
            break
        }

        let response: APIResponse
        do {
            response = try await handler(request, context)
        } catch {
            let problem = ProblemDocument.problem(for: error)
            if problem.code.httpStatus >= 500 {
                try? await repository.abandonIdempotent(principal: principal, key: key)
                throw error
            }
            // A refusal is the answer to this request too: replay it rather than running again.
            let rendered = ProblemDocument.render(problem, instance: request.uri.path, requestId: context.requestId)
            try await repository.completeIdempotent(
                principal: principal, key: key,
                response: StoredResponse(
                    status: problem.code.httpStatus, body: String(decoding: rendered, as: UTF8.self),
                    contentType: "application/problem+json", location: nil))
            throw error
        }
        try await repository.completeIdempotent(
            principal: principal, key: key,
            response: StoredResponse(
                status: response.status.code, body: String(decoding: response.body, as: UTF8.self),
                contentType: response.contentType, location: response.location))
        return response
    }
}
