import HTTPTypes
import Hummingbird

/// With TLS in the binary, every response tells browsers to come back over HTTPS only, for a year (HSTS). The
/// socket router has it too, so the `101` of an upgrade and a refused upgrade carry it as well.
struct StrictTransportSecurityMiddleware<Context: RequestContext>: RouterMiddleware {
    static var name: HTTPField.Name { HTTPField.Name("Strict-Transport-Security")! }
    static var value: String { "max-age=31536000" }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // An error no inner middleware turned into a response would otherwise leave without the header.
            response = try error.response(from: request, context: context)
        }
        response.headers[Self.name] = Self.value
        return response
    }
}
