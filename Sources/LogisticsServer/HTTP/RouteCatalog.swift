import Synchronization

/// Every registered route, for the OpenAPI drift test and for telling a wrong method (405) from a
/// wrong path (404).
final class RouteCatalog: Sendable {
    private let routes = Mutex<[RegisteredRoute]>([])

    func add(_ route: RegisteredRoute) { routes.withLock { $0.append(route) } }

    var all: [RegisteredRoute] { routes.withLock { $0 } }

    /// Methods served on a concrete path such as `/api/v1/orders/123/ready`: those of the one template the router
    /// picks for it. Like the router, a literal segment wins over a parameter, so `/webhooks/dead-letters` is GET
    /// only, not also the DELETE of `/webhooks/{webhookId}` (which the router never reaches for that path).
    func methods(servingPath path: String) -> [String] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let matching = all.compactMap { route -> (route: RegisteredRoute, literals: [Bool])? in
            let template = route.path.split(separator: "/", omittingEmptySubsequences: true)
            guard template.count == segments.count,
                zip(template, segments).allSatisfy({ $0.hasPrefix("{") || $0 == $1 })
            else { return nil }
            return (route, template.map { !$0.hasPrefix("{") })
        }
        guard let best = matching.map(\.literals).max(by: { $0.lexicographicallyPrecedes($1) { !$0 && $1 } })
        else { return [] }
        return Set(matching.filter { $0.literals == best }.map(\.route.method)).sorted()
    }
}
