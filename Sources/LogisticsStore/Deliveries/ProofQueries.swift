import Foundation
import LogisticsCore

extension SQLLogisticsRepository {
    public func recordPhotoProof(
        _ proof: ProofOfDelivery, by rider: Actor, now: Date, geofenceRadiusM: Double,
        storeFile: @escaping @Sendable () async throws -> Void
    ) async throws -> RecordedPhoto {
        try await database.transaction { transaction in
            let (task, order) = try await lockedTaskAndOrder(proof.taskId, rider: rider, in: transaction)
            try DeliveryRules.checkProof(.photo, task: task, order: order)
            // Counted under the task's lock, so two uploads racing for the last place cannot both take it.
            try DeliveryRules.checkPhotoRoom(taken: try await photoCount(taskId: proof.taskId, in: transaction))
            // Only now is the file written: a crash before the commit leaves one file for the sweep, where writing
            // before the check let a hundred refused uploads at once leave a gigabyte for an hour.
            try await storeFile()
            try await insertProof(proof, in: transaction)
            let place = DeliveryRules.photoPlace(proof.location, order: order, radiusM: geofenceRadiusM)
            guard DeliveryRules.awaitsOverride(task, order) else {
                try await acceptProof(proof, task: task, rider: rider, now: now, extra: place, in: transaction)
                return RecordedPhoto(proof: proof, awaitingOverride: false)
            }
            var details = place
            details["podId"] = proof.id.lowercased
            details["sha256"] = proof.sha256
            let reference = order.externalRef ?? order.id.lowercased
            let distance = "\(place["distanceM"] ?? "?") m from the door"
            try await EventLog(transaction: transaction).append(
                .init(
                    orderId: order.id, taskId: task.id, type: OrderEventType.proofOfDeliveryAwaitingOverride,
                    status: task.status.rawValue, occurredAt: proof.capturedAt, receivedAt: now,
                    location: proof.location, actor: rider, details: details),
                notify: [
                    QueuedNotification(
                        recipientId: nil, recipientRole: .dispatcher, title: "Photo after a locked code",
                        body: "Order \(reference): the rider sent a photo \(distance); confirm it with an override.")
                ])
            return RecordedPhoto(proof: proof, awaitingOverride: true)
        }
    }

    public func attemptOTP(
        taskId: UUID, capturedAt: Date, location: GeoPoint, by rider: Actor, now: Date,
        verify: @escaping @Sendable (Order) -> Bool
    ) async throws -> OTPAttemptOutcome {
        try await database.transaction { transaction in
            let (task, order) = try await lockedTaskAndOrder(taskId, rider: rider, in: transaction)
            try DeliveryRules.checkProof(.otp, task: task, order: order)
            if let answer = DeliveryCodeAttempts.answerWithoutChecking(task) { return answer }
            if verify(order) {
                let proof = ProofOfDelivery(
                    id: UUID(), taskId: taskId, orderId: order.id, type: ProofOfDeliveryType.otp.rawValue, sha256: nil,
                    contentType: nil, byteSize: nil, capturedAt: capturedAt, location: location, createdBy: rider.id,
                    createdAt: now)
                try await insertProof(proof, in: transaction)
                try await acceptProof(proof, task: task, rider: rider, now: now, in: transaction)
                return .verified
            }
            let (attempts, outcome) = DeliveryCodeAttempts.afterWrongCode(previousFailures: task.otpFailedAttempts)
            try await transaction.query(
                "UPDATE tasks SET otp_failed_attempts = ?, updated_at = ? WHERE id = ?",
                [.int(attempts), .date(now), .uuid(taskId)])
            guard outcome == .locked else { return outcome }
            try await EventLog(transaction: transaction).append(
                .init(
                    orderId: order.id, taskId: taskId, type: OrderEventType.deliveryCodeLocked,
                    status: task.status.rawValue,
                    occurredAt: capturedAt, receivedAt: now, location: location, actor: rider,
                    details: ["attempts": "\(attempts)"]),
                notify: [
                    QueuedNotification(
                        recipientId: nil, recipientRole: .dispatcher, title: "Delivery code locked",
                        body: "Too many wrong codes for order \(order.externalRef ?? order.id.lowercased).")
                ])
            return .locked
        }
    }

    public func proof(id: UUID) async throws -> ProofOfDelivery? {
        try await database.first("SELECT * FROM proofs_of_delivery WHERE id = ?", [.uuid(id)])
            .map(ProofOfDelivery.init(row:))
    }

    public func latestProof(taskId: UUID) async throws -> ProofOfDelivery? {
        try await database.first(
            "SELECT * FROM proofs_of_delivery WHERE task_id = ? ORDER BY created_at DESC, id DESC LIMIT 1",
            [.uuid(taskId)]
        ).map(ProofOfDelivery.init(row:))
    }

    public func photoProofCount(taskId: UUID) async throws -> Int {
        try await photoCount(taskId: taskId, in: database)
    }

    private func photoCount(taskId: UUID, in executor: any SQLExecutor) async throws -> Int {
        let row = try await executor.first(
            "SELECT COUNT(*) AS n FROM proofs_of_delivery WHERE task_id = ? AND type = ?",
            [.uuid(taskId), .text(ProofOfDeliveryType.photo.rawValue)])
        return try row?.int("n") ?? 0
    }

    private func insertProof(_ proof: ProofOfDelivery, in transaction: any SQLExecutor) async throws {
        try await transaction.query(
            """
            INSERT INTO proofs_of_delivery (id, task_id, order_id, type, sha256, content_type, byte_size, captured_at,
                lat, lon, accuracy_m, created_by, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .uuid(proof.id), .uuid(proof.taskId), .uuid(proof.orderId), .text(proof.type), .text(proof.sha256),
                .text(proof.contentType), proof.byteSize.map { .int($0) } ?? .null, .date(proof.capturedAt),
                .double(proof.location.lat), .double(proof.location.lon), .double(proof.location.accuracyM ?? 0),
                .uuid(proof.createdBy), .date(proof.createdAt),
            ])
    }

    private func acceptProof(
        _ proof: ProofOfDelivery, task: DeliveryTask, rider: Actor, now: Date, extra: [String: String] = [:],
        in transaction: any SQLExecutor
    ) async throws {
        try await transaction.query(
            "UPDATE tasks SET pod_accepted = 1, updated_at = ? WHERE id = ?", [.date(now), .uuid(task.id)])
        var details = extra.merging(["podId": proof.id.lowercased, "type": proof.type]) { $1 }
        if let sha256 = proof.sha256 { details["sha256"] = sha256 }
        try await EventLog(transaction: transaction).append(
            .init(
                orderId: proof.orderId, taskId: task.id, type: OrderEventType.proofOfDeliveryAccepted,
                status: task.status.rawValue, occurredAt: proof.capturedAt, receivedAt: now, location: proof.location,
                actor: rider, details: details))
    }
}

extension ProofOfDelivery {
    init(row: SQLRow) throws {
        self.init(
            id: try row.uuid("id"), taskId: try row.uuid("task_id"), orderId: try row.uuid("order_id"),
            type: try row.string("type"), sha256: row.optionalString("sha256"),
            contentType: row.optionalString("content_type"), byteSize: row.optionalInt("byte_size"),
            capturedAt: try row.date("captured_at"),
            location: GeoPoint(
                lat: row.optionalDouble("lat") ?? 0, lon: row.optionalDouble("lon") ?? 0,
                accuracyM: row.optionalDouble("accuracy_m")),
            createdBy: try row.uuid("created_by"), createdAt: try row.date("created_at"))
    }
}
