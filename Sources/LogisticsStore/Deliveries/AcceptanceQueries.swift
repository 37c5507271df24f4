import Foundation
import LogisticsCore

extension SQLLogisticsRepository {
    /// One transaction: checks, then compare-and-set on the order row and on the rider row, so exactly
    /// one rider wins however many race, on one instance or many sharing PostgreSQL. Every refusal
    /// throws, which rolls the whole transaction back: nothing changes and the rider stays as they were.
    ///
    /// The order row is locked by the compare-and-set itself, not read under a lock first: racing riders wait
    /// inside PostgreSQL for the winner's commit, find the order taken and leave without ever holding the lock.
    /// Read-then-lock made them take the lock one after another, each for the round trips of its refusal, and
    /// racing riders on a loaded machine queued for many seconds. Rows are then locked order → offers → rider, as
    /// in every other writer, so acceptances never deadlock over each other's offers.
    public func acceptOffer(offerId: UUID, by rider: Actor, now: Date) async throws -> (DeliveryTask, Order) {
        try await database.transaction { transaction in
            // A refusal already certain (another rider has the order, the offer closed) costs no lock at all.
            let (unlockedOffer, order) = try await offerThenOrder(offerId, in: transaction)
            switch try OfferAcceptance.decide(offer: unlockedOffer, order: order, riderId: rider.id, now: now) {
            case .alreadyAccepted(let taskId): return (try await lockedTask(taskId, in: transaction), order)
            case .mayAccept: break
            }

            // The compare-and-set also takes the order's next event number. Its condition is all that `decide` and
            // `checkReady` ask of the order, so a change since the read (taken, cancelled) cannot slip through.
            let taskId = UUID()
            guard
                let assigned = try await transaction.first(
                    """
                    UPDATE orders SET assigned_rider_id = ?, task_id = ?, status = 'RIDER_ASSIGNED', updated_at = ?,
                        last_seq = last_seq + 1
                    WHERE id = ? AND assigned_rider_id IS NULL
                        AND (status = 'READY_FOR_PICKUP' OR (status = 'PREPARING' AND expected_ready_at IS NOT NULL))
                    RETURNING *
                    """, [.uuid(rider.id), .uuid(taskId), .date(now), .uuid(order.id)])
            else { return try await refusal(offerId: offerId, rider: rider, now: now, in: transaction) }
            // The offer is locked only now (order before offers): it may have closed since it was read.
            let offer = try await offer(offerId, locked: true, in: transaction)
            _ = try OfferAcceptance.decide(offer: offer, order: order, riderId: rider.id, now: now)
            // The compare-and-set's foreign key holds a key-share lock on the rider's row: the same rider accepting
            // two orders at once holds two, and `FOR UPDATE` here would deadlock them.
            guard
                let riderRow = try await transaction.first(
                    "SELECT * FROM riders WHERE id = ?\(transaction.forNoKeyUpdate)", [.uuid(rider.id)])
            else { throw LogisticsError.notFound("rider") }
            let joiningTrip = offer.tripStops != nil
            try OfferAcceptance.checkRider(try Rider(row: riderRow), joiningTrip: joiningTrip)
            let ranks = joiningTrip ? try await tripRanks(for: offer, riderId: rider.id, in: transaction) : [:]

            // A free rider becomes busy with this task; one on a trip stays busy (the rider row is locked above,
            // so the trip checked there is the trip this joins).
            let busy = try await transaction.query(
                """
                UPDATE riders SET availability = 'ON_TASK', active_task_id = COALESCE(active_task_id, ?), updated_at = ?
                WHERE id = ? AND \(joiningTrip ? "availability IN ('ONLINE', 'ON_TASK')" : "availability = 'ONLINE' AND active_task_id IS NULL")
                RETURNING id
                """, [.uuid(taskId), .date(now), .uuid(rider.id)])
            guard !busy.isEmpty else {
                throw LogisticsError(.riderHasActiveTask, "Finish your current delivery before accepting another")
            }
            let rank = ranks[order.id] ?? (0, 1)
            guard
                let taskRow = try await transaction.first(
                    """
                    INSERT INTO tasks (id, order_id, rider_id, offer_id, status, accepted_at, updated_at, pickup_rank,
                        dropoff_rank)
                    VALUES (?, ?, ?, ?, 'ACCEPTED', ?, ?, ?, ?) RETURNING *
                    """,
                    [
                        .uuid(taskId), .uuid(order.id), .uuid(rider.id), .uuid(offerId), .date(now), .date(now),
                        .int(rank.pickup), .int(rank.dropoff),
                    ])
            else { throw StoreError.corrupt("task insert returned nothing") }
            if joiningTrip {
                for (orderId, rank) in ranks where orderId != order.id {
                    try await transaction.query(
                        "UPDATE tasks SET pickup_rank = ?, dropoff_rank = ? WHERE order_id = ?",
                        [.int(rank.pickup), .int(rank.dropoff), .uuid(orderId)])
                }
                try await settleRider(rider.id, at: now, in: transaction)
            }
            try await transaction.query(
                """
                UPDATE offers SET
                    status = CASE WHEN id = ? THEN 'ACCEPTED' WHEN expires_at <= ? THEN 'EXPIRED' ELSE 'SUPERSEDED' END,
                    closed_at = CASE WHEN id <> ? AND expires_at <= ? THEN expires_at ELSE ? END
                WHERE order_id = ? AND (id = ? OR status = 'OPEN')
                """,
                [
                    .uuid(offerId), .date(now), .uuid(offerId), .date(now), .date(now), .uuid(order.id), .uuid(offerId),
                ])
            try await EventLog(transaction: transaction).write(
                .init(
                    orderId: order.id, taskId: taskId, type: OrderEventType.orderAssigned,
                    status: OrderStatus.riderAssigned.rawValue, occurredAt: now, receivedAt: now, actor: rider,
                    details: ["riderId": rider.id.lowercased, "offerId": offerId.lowercased]),
                seq: try assigned.int("last_seq"),
                notify: [
                    QueuedNotification.catalog(NotificationKey.riderAssigned, to: order.customer.id, role: .customer)
                ])
            return (try DeliveryTask(row: taskRow), try Order(row: assigned))
        }
    }

    /// Why the compare-and-set found nothing to set, from the rows as they are now, in the order of the checks a
    /// winner passes (another rider has the order, this rider is offline, the order is not ready); or the task
    /// when this rider's own earlier request won meanwhile.
    private func refusal(offerId: UUID, rider: Actor, now: Date, in transaction: any SQLExecutor) async throws
        -> (DeliveryTask, Order)
    {
        let (offer, order) = try await offerThenOrder(offerId, in: transaction)
        if case .alreadyAccepted(let taskId) = try OfferAcceptance.decide(
            offer: offer, order: order, riderId: rider.id, now: now)
        {
            return (try await lockedTask(taskId, in: transaction), order)
        }
        guard let riderRow = try await transaction.first("SELECT * FROM riders WHERE id = ?", [.uuid(rider.id)])
        else { throw LogisticsError.notFound("rider") }
        try OfferAcceptance.checkRider(try Rider(row: riderRow), joiningTrip: offer.tripStops != nil)
        try OfferAcceptance.checkReady(order)
        // Taken and released between the two reads: as good as taken.
        throw LogisticsError(.orderAlreadyAssigned, "Another rider accepted this order first")
    }

    /// The offer, then its order, unlocked. In this order: each statement sees what was committed when it ran, and a
    /// winner commits the order taken and the other offers closed together; read the other way round, a loser could
    /// see the order still free and its offer already closed, and be told its offer expired.
    private func offerThenOrder(_ offerId: UUID, in transaction: any SQLExecutor) async throws -> (Offer, Order) {
        let offer = try await offer(offerId, locked: false, in: transaction)
        return (offer, try await order(ofOffer: offerId, locked: false, in: transaction))
    }

    func lockedTask(_ id: UUID, in transaction: any SQLExecutor) async throws -> DeliveryTask {
        guard
            let row = try await transaction.first(
                "SELECT * FROM tasks WHERE id = ?\(transaction.forUpdate)", [.uuid(id)])
        else { throw LogisticsError.notFound("task") }
        return try DeliveryTask(row: row)
    }
}

extension DeliveryTask {
    init(row: SQLRow) throws {
        self.init(
            id: try row.uuid("id"), orderId: try row.uuid("order_id"), riderId: try row.uuid("rider_id"),
            offerId: try row.optionalUUID("offer_id"),
            status: TaskStatus(rawValue: try row.string("status")) ?? .cancelled,
            acceptedAt: try row.date("accepted_at"), updatedAt: try row.date("updated_at"),
            podAccepted: row.bool("pod_accepted"), podOverride: row.bool("pod_override"),
            otpFailedAttempts: row.optionalInt("otp_failed_attempts") ?? 0,
            failureApproved: row.bool("failure_approved"), issueReportedAt: row.optionalDate("issue_reported_at"),
            pickupRank: row.optionalInt("pickup_rank") ?? 0, dropoffRank: row.optionalInt("dropoff_rank") ?? 1)
    }
}
