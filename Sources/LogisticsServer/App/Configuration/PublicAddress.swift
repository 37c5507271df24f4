/// Where people reach this server, for the links it hands out (tracking pages, sign-in invitations) and the
/// address providers sign their callbacks with.
struct PublicAddress: Sendable {
    /// `LOGISTICS_PUBLIC_URL`: behind a proxy, the one address to trust.
    var publicURL: String?
    var tls: Bool
    var host: String
    var port: Int

    /// The configured public URL; else the request's own authority when it is a plain host name or address (never
    /// a Host header that could point a link elsewhere); else this listener's address.
    func base(requestAuthority: String?) -> String {
        if let publicURL { return publicURL }
        let scheme = tls ? "https" : "http"
        if let authority = requestAuthority, !authority.isEmpty, authority.count <= 255,
            authority.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) })
        {
            return "\(scheme)://\(authority)"
        }
        let reachable = host == "0.0.0.0" || host == "::" ? "localhost" : host
        let shown = reachable.contains(":") ? "[\(reachable)]" : reachable
        return "\(scheme)://\(shown):\(port)"
    }
}
