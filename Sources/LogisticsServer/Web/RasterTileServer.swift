import Foundation

/// An operator's raster tile server (`LOGISTICS_TILE_URL`, e.g. `https://tiles.example.org/{z}/{x}/{y}.png`, 256-px
/// tiles): the pages draw its tiles instead of the server's own road tiles, and their CSP allows its images.
public struct RasterTileServer: Sendable, Equatable {
    public let template: String
    /// `scheme://host[:port]`, the only other origin the pages may load from.
    public let origin: String

    public init(template: String) throws {
        guard
            let components = URLComponents(
                string: template.replacingOccurrences(of: "{", with: "%7B")
                    .replacingOccurrences(of: "}", with: "%7D")),
            let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = components.host, !host.isEmpty, components.user == nil
        else {
            throw ConfigurationError(
                "LOGISTICS_TILE_URL must be an http(s) URL such as https://tiles.example.org/{z}/{x}/{y}.png")
        }
        for placeholder in ["{z}", "{x}", "{y}"] where !template.contains(placeholder) {
            throw ConfigurationError("LOGISTICS_TILE_URL must contain {z}, {x} and {y}; \(placeholder) is missing")
        }
        guard !template.contains("\""), !template.contains("'"), !template.contains(" ") else {
            throw ConfigurationError("LOGISTICS_TILE_URL must not contain quotes or spaces")
        }
        self.template = template
        self.origin = "\(scheme)://\(host.lowercased())" + (components.port.map { ":\($0)" } ?? "")
    }
}
