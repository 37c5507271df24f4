/// A binary min-heap of (key, node) pairs with lazy deletion: callers skip entries whose key is out of date.
struct MinHeap<Key: Comparable> {
    private var keys: [Key] = []
    private var nodes: [Int32] = []

    var isEmpty: Bool { keys.isEmpty }
    var count: Int { keys.count }
    var minimumKey: Key? { keys.first }

    mutating func removeAll() {
        keys.removeAll(keepingCapacity: true)
        nodes.removeAll(keepingCapacity: true)
    }

    mutating func push(_ key: Key, _ node: Int32) {
        keys.append(key)
        nodes.append(node)
        var child = keys.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard keys[child] < keys[parent] else { break }
            keys.swapAt(child, parent)
            nodes.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (key: Key, node: Int32)? {
        guard let key = keys.first else { return nil }
        let node = nodes[0]
        let lastKey = keys.removeLast()
        let lastNode = nodes.removeLast()
        if !keys.isEmpty {
            keys[0] = lastKey
            nodes[0] = lastNode
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < keys.count else { break }
                let right = left + 1
                let smaller = right < keys.count && keys[right] < keys[left] ? right : left
                guard keys[smaller] < keys[parent] else { break }
                keys.swapAt(smaller, parent)
                nodes.swapAt(smaller, parent)
                parent = smaller
            }
        }
        return (key, node)
    }
}
