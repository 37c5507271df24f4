import Synchronization

/// Every registered route, for the OpenAPI drift test and for telling a wrong method (405) from a
/// wrong path (404).
final class RouteCatalog: Sendable {
    private let routes = Mutex<[RegisteredRoute]>([])

    func add(_ route: RegisteredRoute) { routes.withLock { $0.append(route) } }

    var all: [RegisteredRoute] { routes.withLock { $0 } }

    /// Methods served on a concrete path such as `/api/v1/orders/123/ready`.
    func methods(servingPath path: String) -> [String] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        return all.filter { route in
            let template = route.path.split(separator: "/", omittingEmptySubsequences: true)
            guard template.count == segments.count else { return false }
            return zip(template, segments).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }.map(\.method).sorted()
    }
}
