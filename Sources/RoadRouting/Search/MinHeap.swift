/// A binary min-heap of (key, node) pairs with lazy deletion: callers skip entries whose key is out of date.
/// Entries live in one array and sift with a hole instead of swaps: this heap is the inner loop of contraction.
struct MinHeap<Key: Comparable> {
    private struct Entry {
        var key: Key
        var node: Int32
    }

    private var entries: [Entry] = []

    var minimumKey: Key? { entries.first?.key }

    mutating func removeAll() { entries.removeAll(keepingCapacity: true) }

    mutating func push(_ key: Key, _ node: Int32) {
        entries.append(Entry(key: key, node: node))
        entries.withUnsafeMutableBufferPointer { heap in
            var child = heap.count - 1
            let moving = heap[child]
            while child > 0 {
                let parent = (child - 1) / 2
                guard moving.key < heap[parent].key else { break }
                heap[child] = heap[parent]
                child = parent
            }
            heap[child] = moving
        }
    }

    mutating func pop() -> (key: Key, node: Int32)? {
        guard let top = entries.first else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries.withUnsafeMutableBufferPointer { heap in
                var parent = 0
                let count = heap.count
                while true {
                    let left = 2 * parent + 1
                    guard left < count else { break }
                    let right = left + 1
                    let smaller = right < count && heap[right].key < heap[left].key ? right : left
                    guard heap[smaller].key < last.key else { break }
                    heap[parent] = heap[smaller]
                    parent = smaller
                }
                heap[parent] = last
            }
        }
        return (top.key, top.node)
    }
}
