import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import LogisticsCore
import LogisticsStore
import NIOCore

/// `Idempotency-Key` on POST: the same key and body replay the first response; the same key with a
/// different body is refused with 422 IDEMPOTENCY_KEY_REUSED.
///
/// The handler runs under an `IdempotencyClaim`, so the order change it commits marks the key in the same
/// transaction. A process that dies after that commit and before storing the response leaves a committed
/// claim; the retry is answered from the order (`IdempotentReplay`) and the change never runs twice.
struct IdempotencyGuard: Sendable {
    let repository: any LogisticsRepository
    let clock: any WallClock
    /// The fault switch for the crash test (`LOGISTICS_FAULT_CRASH_AFTER_COMMIT`): die right after the
    /// handler's commit, before its response is stored or sent.
    var crashAfterCommit = false

    func run(
        _ request: Request, context: LogisticsRequestContext, bodyLimit: Int, replay: IdempotentReplay,
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
        let principal = context.actor.map { "\($0.role.rawValue):\($0.id.lowercased)" } ?? "anonymous"

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
        case .committed(let orderId):
            return try await answerCommitted(
                orderId: orderId, replay: replay, request: request, context: context, principal: principal, key: key,
                handler: handler)
        case .inProgress:
            throw LogisticsError(
                .idempotencyRequestInProgress, "A request with this Idempotency-Key is still running",
                retryAfterSeconds: 1)
        case .proceed:
            break
        }

        let claim = IdempotencyClaim(principal: principal, key: key)
        let response: APIResponse
        do {
            response = try await IdempotencyClaim.$current.withValue(claim) { try await handler(request, context) }
            if crashAfterCommit { FaultSwitch.die("after the commit of \(request.method) \(request.uri.path)") }
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

    /// The change committed but its response was lost: rebuild an answer from the order and keep it for
    /// further retries.
    private func answerCommitted(
        orderId: UUID, replay: IdempotentReplay, request: Request, context: LogisticsRequestContext,
        principal: String, key: String,
        handler: @Sendable (Request, LogisticsRequestContext) async throws -> APIResponse
    ) async throws -> APIResponse {
        var response: APIResponse
        switch replay {
        case .rerun:
            response = try await handler(request, context)
        case .order(let status, let withLocation):
            guard let order = try await repository.order(id: orderId) else { throw LogisticsError.notFound("order") }
            let location = withLocation ? "/api/v1/orders/\(order.id.lowercased)" : nil
            response = try .json(OrderRepresentation(order), status: status, location: location)
        case .acknowledged(let status):
            guard let order = try await repository.order(id: orderId) else { throw LogisticsError.notFound("order") }
            response = try .json(["orderId": order.id.lowercased, "status": order.status.rawValue], status: status)
        }
        try await repository.completeIdempotent(
            principal: principal, key: key,
            response: StoredResponse(
                status: response.status.code, body: String(decoding: response.body, as: UTF8.self),
                contentType: response.contentType, location: response.location))
        response.extraHeaders[HTTPField.Name("Idempotent-Replayed")!] = "true"
        return response
    }
}

/// How a route answers a retry whose first attempt committed but died before its response was stored.
enum IdempotentReplay: Sendable {
    /// The order as it is now (the answer of most order and task actions).
    case order(status: HTTPResponse.Status = .ok, location: Bool = false)
    /// Run the handler again: the action answers a repeat with the same result by itself (accepting an offer
    /// the rider already holds returns their task).
    case rerun
    /// Only that the change was made: the order's id and status. For riders' proofs and reports, whose callers
    /// must not get the order document (it carries the customer's full phone).
    case acknowledged(HTTPResponse.Status)

    static let createdOrder = IdempotentReplay.order(status: .created, location: true)
}
