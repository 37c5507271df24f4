import Crypto
import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore
import NIOCore

/// Proof of delivery: a photo (multipart) or the customer's code (JSON), and serving stored photos.
struct ProofOfDeliveryRoutes {
    let deliveries: any DeliveryRepository
    let orders: any OrderRepository
    let blobs: any BlobStore
    let otp: DeliveryOTP
    /// How far from the door a photo may be taken and still count as at the door; recorded with each photo.
    let geofenceRadiusM: Double
    let clock: any WallClock

    static let photoLimit = 10 * 1024 * 1024
    /// Room for the form's other fields and part headers around the photo.
    static let formOverhead = 64 * 1024

    func register(in routes: inout RouteTable) {
        routes.post(
            "/rider/tasks/{taskId}/pod", roles: [.rider], bodyLimit: Self.photoLimit + Self.formOverhead,
            replay: .acknowledged(.ok), permit: taskOwner, submit)
        routes.get("/pods/{podId}/image", image)
    }

    @Sendable func submit(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        let taskId = try context.uuidParameter("taskId")
        let contentType = request.headers[.contentType]
        if RequestBody.isJSON(contentType) {
            return try await submitCode(request, rider: rider, taskId: taskId)
        }
        guard let boundary = MultipartForm.boundary(fromContentType: contentType) else {
            throw LogisticsError(
                .unsupportedMediaType, "Send a photo as multipart/form-data or a code as application/json")
        }
        return try await submitPhoto(request, boundary: boundary, rider: rider, taskId: taskId)
    }

    /// Only the task's rider, while the task can take a proof, may send one: checked before 10 MiB are read.
    @Sendable func taskOwner(_ request: Request, context: LogisticsRequestContext) async throws {
        try await precheck(taskId: try context.uuidParameter("taskId"), rider: try context.caller(.rider))
    }

    private func submitPhoto(_ request: Request, boundary: String, rider: Actor, taskId: UUID) async throws
        -> APIResponse
    {
        // Refuse before reading a byte of the photo when the task cannot take one.
        let task = try await precheck(taskId: taskId, rider: rider)
        try DeliveryRules.checkPhotoRoom(taken: try await deliveries.photoProofCount(taskId: taskId))
        var request = request
        let limit = Self.photoLimit + Self.formOverhead
        let buffer = try await RequestBody.collect(&request, limit: limit)
        let form = try PhotoProofForm(bytes: Array(buffer: buffer), boundary: boundary, photoLimit: Self.photoLimit)
        let bytes = Array(form.photo)
        let sha256 = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        let now = clock.now()
        let blobs = self.blobs
        let recorded = try await deliveries.recordPhotoProof(
            ProofOfDelivery(
                id: UUID(), taskId: taskId, orderId: task.orderId,
                type: ProofOfDeliveryType.photo.rawValue,
                sha256: sha256, contentType: form.format.contentType, byteSize: bytes.count,
                capturedAt: form.capturedAt, location: form.location, createdBy: rider.id, createdAt: now),
            by: rider, now: now, geofenceRadiusM: geofenceRadiusM,
            storeFile: {
                guard try await blobs.put(bytes) == sha256 else { throw StoreError.corrupt("photo digest") }
            })
        return try .json(
            PhotoProofRepresentation(recorded.proof, awaitingOverride: recorded.awaitingOverride), status: .created)
    }

    private func submitCode(_ request: Request, rider: Actor, taskId: UUID) async throws -> APIResponse {
        let body = try await RequestBody.decode(OTPProofRequest.self, from: request)
        var errors = body.location.validationErrors(field: "location")
        if body.type.uppercased() != "OTP" {
            errors.append(FieldError(field: "type", message: "must be OTP for a JSON proof; send photos as multipart"))
        }
        if body.location.accuracyM == nil {
            errors.append(FieldError(field: "location.accuracyM", message: "is required"))
        }
        if body.value.count != 4 || !body.value.allSatisfy({ $0.isASCII && $0.isNumber }) {
            errors.append(FieldError(field: "value", message: "must be the 4-digit code"))
        }
        guard errors.isEmpty else { throw LogisticsError.validation(errors) }
        let otp = otp
        let attempt = body.value
        let outcome = try await deliveries.attemptOTP(
            taskId: taskId, capturedAt: body.capturedAt, location: body.location, by: rider, now: clock.now(),
            verify: { order in
                guard let hash = order.otpHash else { return false }
                return otp.verify(orderId: order.id, attempt: attempt, storedHash: hash)
            })
        switch outcome {
        case .verified:
            return try .json(["verified": true])
        case .wrong(let remaining):
            throw LogisticsError(
                .invalidOTP, "The code does not match", extras: ["attemptsRemaining": .int(remaining)])
        case .locked:
            throw LogisticsError(
                .otpLocked, "Too many wrong codes; take a photo or ask a dispatcher to override",
                extras: ["attemptsRemaining": .int(0)])
        }
    }

    @Sendable func image(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller()
        let podId = try context.uuidParameter("podId")
        guard let proof = try await deliveries.proof(id: podId), let sha256 = proof.sha256,
            let order = try await orders.order(id: proof.orderId)
        else { throw LogisticsError.notFound("photo") }
        let task = try await deliveries.task(id: proof.taskId)
        let allowed =
            actor.role.isStaff || (actor.role == .customer && order.customer.id == actor.id)
            || (actor.role == .rider && task?.riderId == actor.id)
        guard allowed, let bytes = try await blobs.get(sha256: sha256) else {
            throw LogisticsError.notFound("photo")
        }
        var response = APIResponse(
            status: .ok, body: Data(bytes), contentType: proof.contentType ?? "application/octet-stream")
        response.extraHeaders[.cacheControl] = "private, max-age=86400, immutable"
        response.extraHeaders[.eTag] = "\"\(sha256)\""
        return response
    }

    @discardableResult
    private func precheck(taskId: UUID, rider: Actor) async throws -> DeliveryTask {
        guard let task = try await deliveries.task(id: taskId) else { throw LogisticsError.notFound("task") }
        guard task.riderId == rider.id else { throw LogisticsError(.forbidden, "This task belongs to another rider") }
        try DeliveryRules.checkProofStage(task)
        return task
    }
}

struct PhotoProofRepresentation: Encodable {
    var podId: String
    var type: String
    var imageUrl: String
    var sha256: String?
    var byteSize: Int?
    var contentType: String?
    var capturedAt: Date
    var location: GeoPoint
    /// Taken after the customer's code was locked: kept for a dispatcher, who completes the delivery with an
    /// override; the photo itself does not complete it.
    var awaitingOverride: Bool

    init(_ proof: ProofOfDelivery, awaitingOverride: Bool) {
        self.awaitingOverride = awaitingOverride
        podId = proof.id.lowercased
        type = proof.type
        imageUrl = "/api/v1/pods/\(proof.id.lowercased)/image"
        sha256 = proof.sha256
        byteSize = proof.byteSize
        contentType = proof.contentType
        capturedAt = proof.capturedAt
        location = proof.location
    }
}
