import Crypto
import Foundation

/// Order-scoped, read-only tracking tokens for people without an account (a link texted to the recipient).
///
/// The token is the order id and a keyed MAC of it, so nothing is stored and nothing can be widened: it names one
/// order and opens only that order's tracking. It dies with the order, because tracking refuses ended orders.
/// It is not a JWT on purpose, so no endpoint that takes a bearer JWT can mistake it for one.
public struct TrackingLinks: Sendable {
    static let prefix = "trk_"
    private let key: SymmetricKey

    public init(serverSecret: [UInt8]) {
        key = SymmetricKey(
            data: HMAC<SHA256>.authenticationCode(
                for: Array("tracking-links".utf8), using: SymmetricKey(data: serverSecret)))
    }

    public func token(orderId: UUID) -> String {
        let id = orderId.uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        return Self.prefix + id + "." + Self.base64URL(Data(mac(id)))
    }

    /// The order the token opens, or nil for anything forged, truncated or not a tracking token.
    public func orderId(fromToken token: String) -> UUID? {
        guard token.hasPrefix(Self.prefix) else { return nil }
        let parts = token.dropFirst(Self.prefix.count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 32, let signature = Self.data(base64URL: String(parts[1])),
            HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Array(parts[0].utf8), using: key)
        else { return nil }
        let hex = Array(parts[0])
        let dashed =
            String(hex[0..<8]) + "-" + String(hex[8..<12]) + "-" + String(hex[12..<16]) + "-" + String(hex[16..<20])
            + "-" + String(hex[20..<32])
        return UUID(uuidString: dashed)
    }

    private func mac(_ id: String) -> HashedAuthenticationCode<SHA256> {
        HMAC<SHA256>.authenticationCode(for: Array(id.utf8), using: key)
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func data(base64URL text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
