import Foundation
import LogisticsCore

extension SQLLogisticsRepository {
    /// The rider's unfinished tasks with their orders, the one to act on first.
    public func activeTrip(riderId: UUID) async throws -> RiderTrip {
        try await trip(riderId: riderId, in: database)
    }

    func trip(riderId: UUID, in executor: any SQLExecutor) async throws -> RiderTrip {
        RiderTrip(try await legs(of: try await unfinishedTasks(riderId: riderId, in: executor), in: executor))
    }

    func unfinishedTasks(riderId: UUID, in executor: any SQLExecutor) async throws -> [DeliveryTask] {
        try await executor.query(
            "SELECT * FROM tasks WHERE rider_id = ? AND status NOT IN \(TaskStatus.finalSQLList)",
            [.uuid(riderId)]
        ).map(DeliveryTask.init(row:))
    }

    /// The tasks with their orders, read in one statement.
    func legs(of tasks: [DeliveryTask], in executor: any SQLExecutor) async throws -> [RiderTrip.Leg] {
        guard !tasks.isEmpty else { return [] }
        let orders = try await executor.query(
            "SELECT * FROM orders WHERE id IN (\(Array(repeating: "?", count: tasks.count).joined(separator: ", ")))",
            tasks.map { .uuid($0.orderId) }
        ).map(Order.init(row:))
        let byId = Dictionary(orders.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return try tasks.map { task in
            guard let order = byId[task.orderId] else { throw StoreError.corrupt("task without order") }
            return RiderTrip.Leg(task: task, order: order)
        }
    }

    /// After any change to one of the rider's tasks: the rider's active task becomes the one whose next stop comes
    /// first, and with none left the rider is ONLINE again and free from now.
    func settleRider(_ riderId: UUID, at now: Date, in transaction: any SQLExecutor) async throws {
        if let next = try await unfinishedTasks(riderId: riderId, in: transaction).min(by: DeliveryTask.comesFirst) {
            try await transaction.query(
                """
                UPDATE riders SET active_task_id = ?, updated_at = ?
                WHERE id = ? AND active_task_id IS NOT NULL AND active_task_id <> ?
                """, [.uuid(next.id), .date(now), .uuid(riderId), .uuid(next.id)])
        } else {
            try await transaction.query(
                """
                UPDATE riders SET availability = 'ONLINE', active_task_id = NULL, updated_at = ?, free_since = ?
                WHERE id = ? AND active_task_id IS NOT NULL
                """, [.date(now), .date(now), .uuid(riderId)])
        }
    }

    /// Batching: before the order joins the rider's trip, the trip must still be the one the offer was planned
    /// for (every unfinished task in the plan, so none joined meanwhile). Gives the ranks for each order's stops:
    /// after every rank the trip has used, in the planned sequence.
    func tripRanks(
        for offer: Offer, riderId: UUID, in transaction: any SQLExecutor
    ) async throws -> [UUID: (pickup: Int, dropoff: Int)] {
        let planned = offer.tripStops ?? []
        let tasks = try await unfinishedTasks(riderId: riderId, in: transaction)
        let plannedOrders = Set(planned.map(\.orderId))
        guard tasks.allSatisfy({ plannedOrders.contains($0.orderId) }) else {
            throw LogisticsError(
                .riderHasActiveTask, "Your trip has changed since this offer was made; it no longer fits")
        }
        let base = (tasks.map { max($0.pickupRank, $0.dropoffRank) }.max() ?? -1) + 1
        var ranks: [UUID: (pickup: Int, dropoff: Int)] = [:]
        for task in tasks { ranks[task.orderId] = (task.pickupRank, task.dropoffRank) }
        for (index, stop) in planned.enumerated() {
            var rank = ranks[stop.orderId] ?? (0, 1)
            switch stop.kind {
            case .store: rank.pickup = base + index
            case .customer: rank.dropoff = base + index
            }
            ranks[stop.orderId] = rank
        }
        return ranks
    }
}
