import HTTPTypes
import Hummingbird
import LogisticsCore

/// Registers API routes and remembers them, so a test can hold the OpenAPI document to what the
/// server really serves.
struct RouteTable {
    typealias Handler = @Sendable (Request, LogisticsRequestContext) async throws -> APIResponse
    /// A route's cheap check of who may call it (the role, the task's rider), run before any of the body is read.
    typealias Permit = @Sendable (Request, LogisticsRequestContext) async throws -> Void

    let group: RouterGroup<LogisticsRequestContext>
    let prefix: String
    let idempotency: IdempotencyGuard
    let catalog: RouteCatalog

    init(
        group: RouterGroup<LogisticsRequestContext>, prefix: String, idempotency: IdempotencyGuard,
        catalog: RouteCatalog
    ) {
        self.group = group
        self.prefix = prefix
        self.idempotency = idempotency
        self.catalog = catalog
    }

    mutating func get(_ path: String, _ handler: @escaping Handler) { add(.get, path, handler) }
    mutating func put(_ path: String, _ handler: @escaping Handler) { add(.put, path, handler) }
    mutating func patch(_ path: String, _ handler: @escaping Handler) { add(.patch, path, handler) }
    mutating func delete(_ path: String, _ handler: @escaping Handler) { add(.delete, path, handler) }

    /// POST routes honour `Idempotency-Key`; `bodyLimit` bounds what the key's body hash may read.
    /// `replay` answers a retry whose first attempt committed and then died before its response was stored.
    /// `roles` (any signed-in caller when empty) and `permit` are checked before the body is read, so a caller who
    /// may not use the route cannot make the server buffer a body for it.
    mutating func post(
        _ path: String, roles: [Role], bodyLimit: Int = RequestBody.jsonLimit, replay: IdempotentReplay = .order(),
        permit: Permit? = nil, _ handler: @escaping Handler
    ) {
        let idempotency = self.idempotency
        add(.post, path) { request, context in
            _ = try context.caller(among: roles)
            try await permit?(request, context)
            return try await idempotency.run(
                request, context: context, bodyLimit: bodyLimit, replay: replay, handler: handler)
        }
    }

    /// A POST that needs no token (sign-in): no caller check and no idempotency key, which is kept per caller.
    mutating func postWithoutToken(_ path: String, _ handler: @escaping Handler) { add(.post, path, handler) }

    private mutating func add(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping Handler) {
        group.on(RouterPath(path), method: method) { request, context in try await handler(request, context) }
        catalog.add(RegisteredRoute(method: method.rawValue, path: prefix + path))
    }
}

public struct RegisteredRoute: Hashable, Sendable, CustomStringConvertible {
    public var method: String
    public var path: String
    public var description: String { "\(method) \(path)" }
}
