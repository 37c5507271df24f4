import Foundation
import LogisticsCore

/// Names the field behind a fractional number sent where a whole one belongs. Foundation's decoder on Linux reports
/// 2.5 for an `Int` as "not valid JSON" with no coding path, so the caller would hear "body: is not valid JSON" for
/// a body that is valid JSON. When the body parses, this finds the culprit by bisection over the body's fractional
/// numbers: truncating a set of them to whole numbers makes that error go away exactly when the set holds a culprit.
/// On the error path only, at most ~2·log₂(n) + 1 decodes.
enum FractionalNumberProbe {
    static func field<T: Decodable>(_ type: T.Type, in data: Data, decoder: JSONDecoder) -> FieldError? {
        guard let tree = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        var paths: [[PathStep]] = []
        collect(tree, at: [], into: &paths)
        guard !paths.isEmpty else { return nil }
        func stillCorrupted(truncating chosen: ArraySlice<[PathStep]>) -> Bool {
            var changed = tree
            for path in chosen { changed = truncated(changed, at: path[...]) }
            guard let body = try? JSONSerialization.data(withJSONObject: changed, options: [.fragmentsAllowed]) else {
                return true
            }
            do {
                _ = try decoder.decode(type, from: body)
                return false
            } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
                return true
            } catch {
                return false
            }
        }
        // Truncating every fractional number must cure it, or the cause is something else.
        guard !stillCorrupted(truncating: paths[...]) else { return nil }
        var candidates = paths[...]
        while candidates.count > 1 {
            let half = candidates.prefix(candidates.count / 2)
            candidates = stillCorrupted(truncating: half) ? candidates.dropFirst(half.count) : half
        }
        return FieldError(field: name(candidates.first!), message: "must be a whole number")
    }

    enum PathStep {
        case key(String)
        case index(Int)
    }

    private static func collect(_ value: Any, at path: [PathStep], into paths: inout [[PathStep]]) {
        switch value {
        case let object as [String: Any]:
            for key in object.keys.sorted() { collect(object[key]!, at: path + [.key(key)], into: &paths) }
        case let array as [Any]:
            for (index, element) in array.enumerated() { collect(element, at: path + [.index(index)], into: &paths) }
        case let number as NSNumber where number.doubleValue.rounded() != number.doubleValue:
            paths.append(path)
        default:
            break
        }
    }

    private static func truncated(_ value: Any, at path: ArraySlice<PathStep>) -> Any {
        guard let step = path.first else {
            return (value as? NSNumber).map { NSNumber(value: Int64($0.doubleValue.rounded(.towardZero))) } ?? value
        }
        switch (step, value) {
        case (.key(let key), var object as [String: Any]):
            object[key] = object[key].map { truncated($0, at: path.dropFirst()) }
            return object
        case (.index(let index), var array as [Any]) where array.indices.contains(index):
            array[index] = truncated(array[index], at: path.dropFirst())
            return array
        default:
            return value
        }
    }

    private static func name(_ path: [PathStep]) -> String {
        let joined = path.map { step in
            switch step {
            case .key(let key): ".\(key)"
            case .index(let index): "[\(index)]"
            }
        }.joined()
        return joined.hasPrefix(".") ? String(joined.dropFirst()) : joined
    }
}
