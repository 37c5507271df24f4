/// Why a map could not be read or prepared; each case carries a sentence fit for a terminal or a log line.
public enum MapImportError: Error, Equatable, CustomStringConvertible, Sendable {
    case unreadable(String)
    case corrupt(String)
    case unsupported(String)
    case empty(String)
    case incompatibleGraph(String)

    public var description: String {
        switch self {
        case .unreadable(let detail): "cannot read the map file: \(detail)"
        case .corrupt(let detail): "the map file is corrupt or truncated: \(detail)"
        case .unsupported(let detail): "the map file uses an unsupported feature: \(detail)"
        case .empty(let detail): "the map has no routable roads: \(detail)"
        case .incompatibleGraph(let detail): "the prepared graph file cannot be used: \(detail)"
        }
    }
}
