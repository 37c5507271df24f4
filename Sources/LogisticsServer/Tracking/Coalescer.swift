import Synchronization

/// One drainer at a time: items submitted while a batch is being handled wait and are handled together in the
/// next one. Under light load every item goes at once; under heavy load the batches grow instead of the queue.
/// The group commit of rider fixes and the coalesced NOTIFY payloads both work this way.
final class Coalescer<Item: Sendable>: Sendable {
    private let state = Mutex<(items: [Item], isDraining: Bool)>(([], false))
    private let handle: @Sendable ([Item]) async -> Void

    init(_ handle: @escaping @Sendable ([Item]) async -> Void) {
        self.handle = handle
    }

    func submit(_ items: [Item]) {
        let startsDrainer = state.withLock { state in
            state.items += items
            guard !state.isDraining else { return false }
            state.isDraining = true
            return true
        }
        if startsDrainer { Task { await self.drain() } }
    }

    private func drain() async {
        while true {
            let batch = state.withLock { state -> [Item] in
                let batch = state.items
                state.items = []
                if batch.isEmpty { state.isDraining = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            await handle(batch)
        }
    }
}
