/// Per-node search state for the few hundred nodes a hierarchy query touches: open addressing with linear probing
/// and a multiplicative hash. A query looks up a label for every edge it scans (stall checks included), and the
/// standard dictionary's seeded SipHash made those lookups most of a query's time.
struct NodeTable<Value> {
    private var keys: [Int32]
    private var values: [Value?]
    private var shift: Int
    private(set) var count = 0

    init() {
        keys = Array(repeating: -1, count: 512)
        values = Array(repeating: nil, count: 512)
        shift = 64 - 9
    }

    private func slot(of node: Int32) -> Int {
        Int(truncatingIfNeeded: (UInt64(UInt32(bitPattern: node)) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    subscript(node: Int32) -> Value? {
        get {
            let mask = keys.count - 1
            var index = slot(of: node)
            while true {
                let key = keys[index]
                if key == node { return values[index] }
                if key < 0 { return nil }
                index = (index + 1) & mask
            }
        }
        set {
            // Searches only add and update labels; a nil is never stored.
            guard let newValue else { return }
            let mask = keys.count - 1
            var index = slot(of: node)
            while true {
                let key = keys[index]
                if key == node {
                    values[index] = newValue
                    return
                }
                if key < 0 { break }
                index = (index + 1) & mask
            }
            keys[index] = node
            values[index] = newValue
            count += 1
            if count * 2 > keys.count { grow() }
        }
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldValues = values
        keys = Array(repeating: -1, count: oldKeys.count * 2)
        values = Array(repeating: nil, count: oldKeys.count * 2)
        shift -= 1
        count = 0
        for (index, key) in oldKeys.enumerated() where key >= 0 { self[key] = oldValues[index] }
    }
}
