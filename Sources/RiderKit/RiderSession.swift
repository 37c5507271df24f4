import Foundation
import LogisticsCore

/// The rider app's logic for one rider: accepting offers, recording taps into the offline queue, and the
/// arrival check. The app supplies the location and the UI callbacks; everything else lives here, once.
public struct RiderSession: Sendable {
    public let api: RiderAPI
    public let queue: ActionQueue
    /// How long the first accept may take before the single automatic retry.
    public var acceptTimeout: Duration = .seconds(5)

    public init(api: RiderAPI, queue: ActionQueue) {
        self.api = api
        self.queue = queue
    }

    /// Accept failed twice (no answer, or no connection): the app reverts to the offer screen.
    public struct AcceptFailed: Error, Sendable, Equatable {
        public var reason: String
    }

    /// Accepts an offer with exactly one automatic retry when the first attempt gets no answer in time
    /// (the server answers a repeated accept by the winner with the same task). A refusal (offer expired,
    /// order taken) is thrown at once, without retrying.
    public func accept(offerId: String) async throws -> RiderTask {
        do {
            return try await api.accept(offerId: offerId, timeout: acceptTimeout)
        } catch let error as RiderAPIError where !error.isPermanent {
            do {
                return try await api.accept(offerId: offerId, timeout: acceptTimeout)
            } catch let retry as RiderAPIError where !retry.isPermanent {
                throw AcceptFailed(reason: retry.description)
            }
        }
    }

    /// Records a status tap with its time and place, then tries to send it (and anything queued before it).
    @discardableResult
    public func tap(
        _ status: TaskStatus, taskId: String, at location: GeoPoint?, now: Date = Date(),
        farFromDestinationConfirmed: Bool = false, reason: String? = nil
    ) async throws -> ActionQueue.State {
        try await queue.record(
            RiderAction(
                taskId: taskId,
                kind: .status(status, farFromDestinationConfirmed: farFromDestinationConfirmed, reason: reason),
                occurredAt: now, location: location))
        return await queue.sync()
    }

    /// ARRIVED_AT_DESTINATION with the requirement's check: farther than the server's geofence radius (500 m by
    /// default) from the customer, the app is
    /// asked `ArrivalCheck.question`; only a Yes records the tap (with `farFromDestinationConfirmed`). Returns
    /// false when the rider said No (nothing is recorded or sent).
    public func arrive(
        task: RiderTask, at location: GeoPoint, now: Date = Date(),
        confirm: @Sendable (_ question: String) async -> Bool
    ) async throws -> Bool {
        var confirmed = false
        if let customer = task.customer,
            ArrivalCheck.isFar(location, from: customer.location, radiusM: task.geofenceRadiusM)
        {
            guard await confirm(ArrivalCheck.question) else { return false }
            confirmed = true
        }
        try await tap(
            .arrivedAtDestination, taskId: task.taskId, at: location, now: now, farFromDestinationConfirmed: confirmed)
        return true
    }

    /// The customer's code as proof of delivery, queued like a tap.
    @discardableResult
    public func proveDelivery(code: String, taskId: String, at location: GeoPoint, now: Date = Date()) async throws
        -> ActionQueue.State
    {
        try await queue.record(
            RiderAction(taskId: taskId, kind: .deliveryCode(code), occurredAt: now, location: location))
        return await queue.sync()
    }

    /// A proof-of-delivery photo, queued like a tap. The photo is copied next to the queue first, so it survives
    /// the app being killed before it is sent.
    @discardableResult
    public func provePhoto(_ photo: [UInt8], taskId: String, at location: GeoPoint, now: Date = Date()) async throws
        -> ActionQueue.State
    {
        let action = RiderAction(taskId: taskId, kind: .photo(path: ""), occurredAt: now, location: location)
        let file = await queue.photoDirectory.appendingPathComponent("\(action.id.lowercased).photo")
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(photo).write(to: file, options: .atomic)
        var stored = action
        stored.kind = .photo(path: file.path)
        try await queue.record(stored)
        return await queue.sync()
    }

    /// On launch: the server's view of the active task, with queued actions for other tasks dropped.
    public func resume() async throws -> RiderTask? {
        let task = try await api.activeTask()
        try await queue.reconcile(activeTask: task)
        return task
    }
}

/// The arrival check of the requirements, with the radius the server configured (500 m by default).
public enum ArrivalCheck {
    public static let question = RiderAppRules.arrivalQuestion

    public static func isFar(
        _ location: GeoPoint, from destination: GeoPoint, radiusM: Double = RiderAppRules.defaultGeofenceRadiusM
    ) -> Bool {
        RiderAppRules.isFarFromDestination(location, destination: destination, radiusM: radiusM)
    }
}
