import AsyncHTTPClient
import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import NIOCore
import NIOHTTP1

/// How the `log` provider's messages are logged: the demo finds them by it and shows them on its console.
public enum TextMessageLog {
    public static let message = "text message (LOGISTICS_SMS_PROVIDER=log; nothing was sent)"
}

/// Development's provider: the message goes to the server log (and so to the demo's console), nowhere else.
struct LogTextSender: NotificationSender {
    let channel = NotificationChannel.sms
    let concurrency = 1
    let logger: Logger

    func send(_ notification: PendingNotification) async -> SendOutcome {
        logger.notice(
            "\(TextMessageLog.message)",
            metadata: ["to": "\(notification.target)", "text": "\(notification.body ?? "")"])
        return .delivered(providerId: nil)
    }
}

/// Twilio's Messages API: `POST {base}/2010-04-01/Accounts/{AccountSid}/Messages.json`, a form with `To`, `From`
/// (or `MessagingServiceSid`), `Body` and `StatusCallback`, HTTP Basic with the account SID and auth token. 201 is
/// sent; Twilio's error document (`code`, `message`, `more_info`, `status`) says whether trying again can help.
struct TwilioTextSender: NotificationSender {
    let channel = NotificationChannel.sms
    let concurrency: Int
    let baseURL: String
    let accountSid: String
    let authToken: Redacted
    let from: String?
    let messagingServiceSid: String?
    /// Where Twilio reports the message's progress; nil when the server has no public address to give.
    let statusCallback: String?
    let http: HTTPClient
    let clock: any WallClock

    private struct ErrorDocument: Decodable {
        var code: Int?
        var message: String?
    }

    /// The Message resource Twilio answers 201 with: its SID names the message in the status callbacks.
    private struct MessageResource: Decodable {
        var sid: String?
        var status: String?
    }

    /// Twilio's codes for a message that no retry will deliver: a number that is not valid, not a mobile, not
    /// reachable from the sender, or that opted out (STOP).
    static let permanentCodes: Set<Int> = [21211, 21408, 21601, 21602, 21604, 21610, 21612, 21614, 21617, 21635]

    func send(_ notification: PendingNotification) async -> SendOutcome {
        var request = HTTPClientRequest(url: "\(baseURL)/2010-04-01/Accounts/\(accountSid)/Messages.json")
        request.method = .POST
        let credentials = Data("\(accountSid):\(authToken.value)".utf8).base64EncodedString()
        request.headers.add(name: "authorization", value: "Basic \(credentials)")
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "accept", value: "application/json")
        var fields = [("To", notification.target), ("Body", notification.body ?? "")]
        if let from { fields.append(("From", from)) }
        if let messagingServiceSid { fields.append(("MessagingServiceSid", messagingServiceSid)) }
        if let statusCallback { fields.append(("StatusCallback", statusCallback)) }
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))
        do {
            let response = try await http.execute(request, timeout: .seconds(15))
            let body = await ProviderResponse.body(response)
            if response.status == .created || response.status == .ok {
                let resource = try? JSONDecoder().decode(MessageResource.self, from: Data(buffer: body))
                return .delivered(providerId: resource?.sid)
            }
            let reason = ProviderResponse.describe(response.status, body)
            let document = try? JSONDecoder().decode(ErrorDocument.self, from: Data(buffer: body))
            if let code = document?.code, Self.permanentCodes.contains(code) { return .rejected(reason: reason) }
            if ProviderResponse.isTransient(response.status) || response.status == .unauthorized
                || response.status == .forbidden
            {
                // 401/403 is our credentials (rotated, suspended account): worth retrying once they are fixed.
                return .retry(
                    reason: reason, after: ProviderResponse.retryAfter(response.headers, now: clock.now()))
            }
            return .rejected(reason: reason)
        } catch {
            return .retry(reason: "Twilio unreachable: \(error)", after: nil)
        }
    }
}

/// A gateway of the company's own: `POST {url}` with `{"to": "+…", "body": "…"}` as JSON, a bearer token when one
/// is configured. Any 2xx is sent; 429 and 5xx are retried; other answers are refusals.
struct HTTPTextSender: NotificationSender {
    let channel = NotificationChannel.sms
    let concurrency: Int
    let url: String
    let token: Redacted?
    let http: HTTPClient
    let clock: any WallClock

    func send(_ notification: PendingNotification) async -> SendOutcome {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        if let token { request.headers.add(name: "authorization", value: "Bearer \(token.value)") }
        do {
            let document = try JSONEncoder().encode(["to": notification.target, "body": notification.body ?? ""])
            request.body = .bytes(ByteBuffer(bytes: document))
            let response = try await http.execute(request, timeout: .seconds(15))
            let body = await ProviderResponse.body(response)
            if (200..<300).contains(response.status.code) { return .delivered(providerId: nil) }
            let reason = ProviderResponse.describe(response.status, body)
            return ProviderResponse.isTransient(response.status)
                ? .retry(reason: reason, after: ProviderResponse.retryAfter(response.headers, now: clock.now()))
                : .rejected(reason: reason)
        } catch {
            return .retry(reason: "SMS gateway unreachable: \(error)", after: nil)
        }
    }
}

/// `application/x-www-form-urlencoded` as the WHATWG URL standard writes it: unreserved bytes as they are, a
/// space as `+`, everything else percent-encoded (a `+` in a phone number must arrive as `%2B`).
enum FormEncoding {
    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}

/// A secret held in memory that prints as stars: services are described in the lifecycle's debug log, and a
/// sender's description would otherwise carry its provider's credentials.
struct Redacted: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let value: String
    var description: String { "********" }
    var debugDescription: String { "********" }
    var customMirror: Mirror { Mirror(self, children: []) }
}

/// A secret read from a file (never from the environment's value, which `ps` and crash reports can show),
/// without its trailing newline.
enum SecretFile {
    static func read(_ path: String, what: String) throws -> Redacted {
        guard let data = FileManager.default.contents(atPath: path),
            let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
            !text.isEmpty
        else { throw ConfigurationError("\(what) \(path) cannot be read or is empty") }
        return Redacted(value: text)
    }
}
