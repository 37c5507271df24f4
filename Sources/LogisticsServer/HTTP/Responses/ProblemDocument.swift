import Foundation
import HTTPTypes
import Hummingbird
import LogisticsCore
import LogisticsStore
import NIOCore

/// RFC 9457 problem documents: the one shape every error takes.
enum ProblemDocument {
    static func response(for error: LogisticsError, instance: String, requestId: String) -> Response {
        var headers: HTTPFields = [.contentType: "application/problem+json"]
        if let retryAfter = error.retryAfterSeconds { headers[.retryAfter] = String(retryAfter) }
        return Response(
            status: HTTPResponse.Status(code: error.code.httpStatus), headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: render(error, instance: instance, requestId: requestId))))
    }

    static func render(_ error: LogisticsError, instance: String, requestId: String) -> Data {
        var object: [String: Any] = [
            "type": "https://errors.rider-logistics.dev/\(error.code.rawValue)",
            "title": error.code.title,
            "status": error.code.httpStatus,
            "code": error.code.rawValue,
            "detail": error.detail,
            "instance": instance,
            "requestId": requestId,
        ]
        for (key, value) in error.extras {
            switch value {
            case .int(let int): object[key] = int
            case .double(let double): object[key] = double.isFinite ? (double * 10).rounded() / 10 : 0
            case .string(let string): object[key] = string
            case .strings(let strings): object[key] = strings
            case .fieldErrors(let errors): object[key] = errors.map { ["field": $0.field, "message": $0.message] }
            }
        }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
    }

    /// Maps any error to a problem the client may see, without leaking SQL, paths or stack traces.
    static func problem(for error: any Error) -> LogisticsError {
        switch error {
        case let error as LogisticsError:
            return error
        case let error as StoreError:
            switch error {
            case .unavailable:
                return LogisticsError(
                    .serviceUnavailable, "The database cannot be reached right now", retryAfterSeconds: 5)
            case .uniqueViolation:
                return LogisticsError(.conflict, "This conflicts with something that already exists")
            case .retryable:
                return LogisticsError(.serviceUnavailable, "The service is busy; please retry", retryAfterSeconds: 1)
            case .storageFull:
                return LogisticsError(
                    .serviceUnavailable, "The server has run out of storage space; nothing was saved",
                    retryAfterSeconds: 30)
            case .corrupt, .rejected:
                return LogisticsError(.internalError, "The request could not be completed")
            }
        case let error as HTTPError:
            switch error.status {
            case .notFound: return LogisticsError(.notFound, "No such resource")
            case .methodNotAllowed: return LogisticsError(.methodNotAllowed, "Method not allowed on this resource")
            case .contentTooLarge: return RequestBody.tooLarge(RequestBody.jsonLimit)
            case .unsupportedMediaType: return LogisticsError(.unsupportedMediaType, "Unsupported content type")
            case .badRequest: return LogisticsError.validation(field: "request", "is malformed")
            case .unauthorized: return LogisticsError(.unauthenticated, "A valid bearer token is required")
            case .forbidden: return LogisticsError(.forbidden, "Not allowed")
            default: return LogisticsError(.internalError, "The request could not be completed")
            }
        case is CancellationError:
            return LogisticsError(.serviceUnavailable, "The server is shutting down", retryAfterSeconds: 1)
        default:
            return LogisticsError(.internalError, "The request could not be completed")
        }
    }
}

/// Converts every thrown error into a problem document, and logs the ones that are our fault.
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = LogisticsRequestContext
    let catalog: RouteCatalog

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            // The router says 404 for a known path with the wrong method too; tell the two apart.
            let allowed = catalog.methods(servingPath: request.uri.path)
            guard !allowed.isEmpty else {
                return ProblemDocument.response(
                    for: ProblemDocument.problem(for: error), instance: request.uri.path, requestId: context.requestId)
            }
            var response = ProblemDocument.response(
                for: LogisticsError(
                    .methodNotAllowed,
                    "\(request.method.rawValue) is not served here; use \(allowed.joined(separator: ", "))"),
                instance: request.uri.path, requestId: context.requestId)
            response.headers[.allow] = allowed.joined(separator: ", ")
            return response
        } catch {
            let problem = ProblemDocument.problem(for: error)
            if problem.code.httpStatus >= 500 {
                context.logger.error(
                    "request failed",
                    metadata: ["error": "\(String(reflecting: error))", "code": "\(problem.code.rawValue)"])
            }
            return ProblemDocument.response(for: problem, instance: request.uri.path, requestId: context.requestId)
        }
    }
}

/// Gives each request an id (the caller's `X-Request-Id`, or a new one) in logs and the response.
struct RequestIdMiddleware: RouterMiddleware {
    typealias Context = LogisticsRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let supplied = request.headers[.requestId].flatMap { $0.count <= 128 && !$0.isEmpty ? $0 : nil }
        context.requestId = supplied ?? UUID().lowercased
        context.logger[metadataKey: "request_id"] = .string(context.requestId)
        var response = try await next(request, context)
        response.headers[.requestId] = context.requestId
        return response
    }
}

extension HTTPField.Name {
    static let requestId = Self("X-Request-Id")!
    static let idempotencyKey = Self("Idempotency-Key")!
}
