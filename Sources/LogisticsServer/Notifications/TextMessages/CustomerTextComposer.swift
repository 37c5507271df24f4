import Foundation
import LogisticsCore
import LogisticsStore

/// Writes a customer's text when it is sent, not when it is queued: the words in the order's language, with what
/// only the moment of sending knows or should hold — the tracking link (the server's link for the order), the
/// delivery code of an OTP order (never stored in the queue), the rider's first name and the time.
struct CustomerTextComposer: Sendable {
    let orders: any OrderRepository
    let riders: any RiderRepository
    let links: any TrackingLinkRepository
    let trackingLinks: TrackingLinks
    let otp: DeliveryOTP
    /// The public URL links start with.
    let publicBase: String
    let settings: CustomerMessageSettings
    let clock: any WallClock

    /// One message, ready for a provider: SMS takes `text`; WhatsApp's template takes `key` and `values`.
    struct Composed: Equatable {
        var key: String
        var language: String
        var values: [String: String]
        var text: String
    }

    enum Failure: Error, CustomStringConvertible {
        case noText(String)
        case orderGone

        var description: String {
            switch self {
            case .noText(let key): "customers get no text for \(key)"
            case .orderGone: "the order no longer exists"
            }
        }
    }

    func compose(_ notification: PendingNotification) async throws -> Composed {
        guard let baseKey = notification.textKey else { throw Failure.noText("a message without a catalog key") }
        guard let order = try await orders.order(id: notification.orderId) else { throw Failure.orderGone }
        let locale = notification.locale ?? order.customer.locale
        let event = OutboxEventHead(json: notification.payload)
        var values = notification.textArguments
        values["sender"] = settings.senderName
        values["vendor"] = order.vendor.name
        var key = baseKey
        if order.podType == .otp, let seed = order.otpSeed, !order.status.isFinal {
            key = CustomerTexts.key(baseKey, withCode: true)
            if key != baseKey { values["code"] = otp.code(orderId: order.id, seed: seed, storedHash: order.otpHash) }
        }
        if let riderId = order.assignedRiderId, let name = try await riders.rider(id: riderId)?.firstName {
            values["rider"] = name
        } else {
            values["rider"] = CustomerTexts.phrase("yourRider", locale: locale) ?? "Your rider"
        }
        // The kind the dispatcher chose for the customer first; a status's own reason (a failure's code) next.
        if let reason = event?.data?["reasonKind"] ?? values["reason"] ?? event?.data?["reason"] {
            values["reason"] = CustomerTexts.reason(reason, locale: locale)
        }
        if let by = values["by"], let words = CustomerTexts.phrase("by.\(by)", locale: locale) { values["by"] = words }
        values["time"] = Self.time(
            event?.occurredAt.flatMap(RFC3339.date(from:)) ?? clock.now(), zone: settings.timeZone)
        let needsLink = CustomerTexts.templateParameters[key]?.contains("link") ?? false
        if needsLink {
            let linkId = try await links.messageLink(orderId: order.id, now: clock.now())
            values["link"] = publicBase + "/track/" + trackingLinks.shortToken(linkId: linkId)
        }
        guard let text = CustomerTexts.message(key, locale: locale, arguments: values) else {
            throw Failure.noText(key)
        }
        return Composed(key: key, language: CustomerTexts.language(locale), values: values, text: text)
    }

    /// A message ready for the provider, or how the attempt ends when it cannot be written: refused for good (no
    /// words for it, the order gone), or tried again (the database did not answer).
    enum Written {
        case message(Composed)
        case unsent(SendOutcome)
    }

    func write(_ notification: PendingNotification) async -> Written {
        do {
            return .message(try await compose(notification))
        } catch let failure as Failure {
            return .unsent(.rejected(reason: failure.description))
        } catch {
            return .unsent(.retry(reason: "could not write the message: \(error)", after: nil))
        }
    }

    static func time(_ date: Date, zone: String) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone) ?? .gmt
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }
}

/// Puts the composed text in a customer's message before the provider sends it; everything else (sign-in codes,
/// invitations) passes as it is.
struct CustomerTextSender: NotificationSender {
    let inner: any NotificationSender
    let composer: CustomerTextComposer
    var channel: NotificationChannel { inner.channel }
    var concurrency: Int { inner.concurrency }

    func send(_ notification: PendingNotification) async -> SendOutcome {
        guard notification.isCustomerText else { return await inner.send(notification) }
        switch await composer.write(notification) {
        case .unsent(let outcome):
            return outcome
        case .message(let message):
            var written = notification
            written.body = message.text
            return await inner.send(written)
        }
    }
}
