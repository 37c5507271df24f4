/// A bounded map that, when full, forgets the entry used longest ago, so the entries in use (the tiles around
/// today's deliveries) stay while rare ones make room. Every operation is O(1): the entries form a doubly linked
/// list, most recent first, kept in an array whose slots are reused.
struct LeastRecentlyUsed<Key: Hashable, Value> {
    private struct Entry {
        var key: Key
        var value: Value
        var newer: Int?
        var older: Int?
    }

    let capacity: Int
    private var entries: [Entry] = []
    private var slots: [Key: Int] = [:]
    private var newest: Int?
    private var oldest: Int?

    init(capacity: Int) {
        precondition(capacity > 0, "a cache needs room for one entry")
        self.capacity = capacity
    }

    var count: Int { slots.count }

    /// The value, which now counts as the most recently used.
    mutating func value(for key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        moveToFront(slot)
        return entries[slot].value
    }

    func contains(_ key: Key) -> Bool { slots[key] != nil }

    /// Stores the value as the most recently used, forgetting the least recently used entry when full.
    mutating func insert(_ value: Value, for key: Key) {
        if let slot = slots[key] {
            entries[slot].value = value
            moveToFront(slot)
            return
        }
        let slot: Int
        if entries.count < capacity {
            slot = entries.count
            entries.append(Entry(key: key, value: value))
        } else {
            slot = oldest!
            unlink(slot)
            slots[entries[slot].key] = nil
            entries[slot] = Entry(key: key, value: value)
        }
        slots[key] = slot
        linkAtFront(slot)
    }

    private mutating func moveToFront(_ slot: Int) {
        guard newest != slot else { return }
        unlink(slot)
        linkAtFront(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let (newer, older) = (entries[slot].newer, entries[slot].older)
        if let newer { entries[newer].older = older } else { newest = older }
        if let older { entries[older].newer = newer } else { oldest = newer }
        entries[slot].newer = nil
        entries[slot].older = nil
    }

    private mutating func linkAtFront(_ slot: Int) {
        entries[slot].older = newest
        if let newest { entries[newest].newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
    }
}
