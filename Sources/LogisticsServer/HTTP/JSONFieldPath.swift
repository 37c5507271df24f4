/// A place in a parsed JSON body, named the way field errors name it (`jobs[27].service`).
enum JSONFieldPath {
    enum Step {
        case key(String)
        case index(Int)
    }

    static func name(_ path: [Step]) -> String {
        let joined = path.map { step in
            switch step {
            case .key(let key): ".\(key)"
            case .index(let index): "[\(index)]"
            }
        }.joined()
        return joined.hasPrefix(".") ? String(joined.dropFirst()) : joined
    }
}
