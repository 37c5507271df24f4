import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// After delivery, for the tracking link's holder: the proof (the photo, or that the code was confirmed) and the one
/// rating the order takes. Only what the delivery left behind: the rider's position ends with the order, and all of
/// it ends with the link's time after the order (`TrackingLinkAccess`).
struct TrackingOutcome: Sendable {
    let linkAccess: TrackingLinkAccess
    let deliveries: any DeliveryRepository
    let ratings: any RatingRepository
    let blobs: any BlobStore
    let clock: any WallClock

    func register(in routes: inout RouteTable) {
        // The link is the credential: no sign-in, so no idempotency key either (a second rating is refused anyway).
        routes.postWithoutToken("/track/{token}/rating", rate)
        routes.get("/track/{token}/proof-photo", proofPhoto)
    }

    struct RatingRequest: Decodable {
        var stars: Int
        var comment: String?
    }

    struct RatingRepresentation: Encodable {
        var orderId: String
        var stars: Int
        var comment: String?
        var ratedAt: Date

        init(_ rating: DeliveryRating) {
            orderId = rating.orderId.lowercased
            stars = rating.stars
            comment = rating.comment
            ratedAt = rating.ratedAt
        }
    }

    /// `POST /track/{token}/rating`: 201 once per delivered order; 409 NOT_DELIVERED before, ALREADY_RATED after.
    @Sendable func rate(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let (order, _) = try await linkAccess.order(try token(context))
        let body = try await RequestBody.decode(RatingRequest.self, from: request)
        // The comment is measured as sent: blanks that cleaning would drop still count against the limit.
        let errors = DeliveryRating.validationErrors(stars: body.stars, comment: body.comment)
        guard errors.isEmpty else { throw LogisticsError.validation(errors) }
        let rating = try await ratings.rateDelivery(
            orderId: order.id, stars: body.stars, comment: DeliveryRating.cleanComment(body.comment),
            now: clock.now())
        return Self.forLinkHolder(try .json(RatingRepresentation(rating), status: .created))
    }

    /// `GET /track/{token}/proof-photo`: the delivered order's proof photo, which the page shows as a thumbnail.
    @Sendable func proofPhoto(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let (order, _) = try await linkAccess.order(try token(context))
        guard order.status == .delivered, let proof = try await proof(of: order), let sha256 = proof.sha256,
            let bytes = try await blobs.get(sha256: sha256)
        else { throw LogisticsError.notFound("photo") }
        return Self.forLinkHolder(
            APIResponse(status: .ok, body: Data(bytes), contentType: proof.contentType ?? "application/octet-stream"))
    }

    /// The part of the ended page a delivered order adds: its proof, and the rating form or the rating given.
    func section(of order: Order, token: String, text: [String: String]) async throws -> String {
        var html = #"<section id="after-delivery" class="after-delivery" data-texts=""#
        html += WebPage.escape(String(decoding: try JSONEncoder().encode(text), as: UTF8.self)) + #"">"#
        let proof = try await proof(of: order)
        if proof?.type == ProofOfDeliveryType.photo.rawValue, proof?.sha256 != nil {
            let caption = WebPage.escape(text["proofPhoto"]!)
            let photo = WebPage.escape("/track/\(token)/proof-photo")
            // The whole photo is one tap away; the page shows it small.
            html +=
                #"<h2>\#(WebPage.escape(text["proofTitle"]!))</h2><figure class="proof"><a href="\#(photo)">"#
                + #"<img id="proof-photo" class="proof-thumb" src="\#(photo)" alt="\#(caption)" width="96" "#
                + #"height="96"></a><figcaption>\#(caption)</figcaption></figure>"#
        } else if proof?.type == ProofOfDeliveryType.otp.rawValue {
            html +=
                #"<h2>\#(WebPage.escape(text["proofTitle"]!))</h2>"#
                + #"<p id="code-confirmed" class="proof-code">✓ \#(WebPage.escape(text["codeConfirmed"]!))</p>"#
        }
        if let rating = try await ratings.rating(orderId: order.id) {
            html += Self.given(rating, text: text)
        } else {
            html += Self.form(text: text)
        }
        return html + "</section>"
    }

    static func given(_ rating: DeliveryRating, text: [String: String]) -> String {
        let words = NotificationCatalog.fill(text["yourRating"]!, ["stars": String(rating.stars)])
        return #"<p id="rating-given" class="rating-given"><span aria-hidden="true">"#
            + String(repeating: "★", count: rating.stars) + String(repeating: "☆", count: 5 - rating.stars)
            + "</span> " + WebPage.escape(words) + "</p>"
    }

    /// Radio buttons named in words (and stars), best first: a thumb finds them on a narrow phone, a screen reader
    /// reads them; the page's script sends the form.
    static func form(text: [String: String]) -> String {
        var html = #"<form id="rating" class="rating" novalidate><fieldset><legend>"#
        html += WebPage.escape(text["rateTitle"]!) + "</legend>"
        for stars in DeliveryRating.stars.reversed() {
            html +=
                #"<label class="star-choice"><input type="radio" name="stars" value="\#(stars)"> "#
                + #"<span class="stars" aria-hidden="true">"# + String(repeating: "★", count: stars)
                + String(repeating: "☆", count: 5 - stars) + "</span> "
                + WebPage.escape(text["star\(stars)"]!) + "</label>"
        }
        html += "</fieldset>"
        html +=
            #"<label class="comment-label" for="rating-comment">\#(WebPage.escape(text["comment"]!))</label>"#
            + #"<textarea id="rating-comment" name="comment" rows="3" "#
            + #"maxlength="\#(DeliveryRating.maximumCommentLength)"></textarea>"#
            + #"<button type="submit">\#(WebPage.escape(text["sendRating"]!))</button>"#
            + #"<p id="rating-message" class="rating-message" role="status" aria-live="polite"></p></form>"#
        return html
    }

    /// The proof that completed the delivery: the newest of its task's.
    private func proof(of order: Order) async throws -> ProofOfDelivery? {
        guard let taskId = order.taskId else { return nil }
        return try await deliveries.latestProof(taskId: taskId)
    }

    private func token(_ context: LogisticsRequestContext) throws -> String {
        guard let token = context.parameters.get("token") else { throw LogisticsError.notFound("tracking link") }
        return token
    }

    /// Answers to a link's holder are nobody else's: not cached, not sniffed, no referrer.
    private static func forLinkHolder(_ response: APIResponse) -> APIResponse {
        var response = response
        WebPage.secure(&response)
        response.extraHeaders[.cacheControl] = "no-store"
        return response
    }
}
