import Foundation

/// One environment variable the server reads: its name, and how its value sets the configuration. Each feature
/// declares its own variables beside its settings; `ServerConfiguration.fromEnvironment` applies them in order, and
/// a test holds `docs/configuration.md` to the same declarations, so the two cannot drift.
struct EnvironmentSetting<Root> {
    let name: String
    /// Called only when the variable is set.
    let apply: (inout Root, String) throws -> Void

    /// The same variable, setting a feature's part of a larger configuration.
    func within<Outer>(_ path: WritableKeyPath<Outer, Root>) -> EnvironmentSetting<Outer> {
        let apply = self.apply
        return EnvironmentSetting<Outer>(name: name) { outer, value in try apply(&outer[keyPath: path], value) }
    }

    /// A value taken as written; empty leaves the default unless `keepEmpty`.
    static func text(_ name: String, _ path: WritableKeyPath<Root, String?>, keepEmpty: Bool = false) -> Self {
        Self(name: name) { root, value in
            if keepEmpty || !value.isEmpty { root[keyPath: path] = value }
        }
    }

    static func text(_ name: String, _ path: WritableKeyPath<Root, String>, keepEmpty: Bool = false) -> Self {
        Self(name: name) { root, value in
            if keepEmpty || !value.isEmpty { root[keyPath: path] = value }
        }
    }

    /// A whole number within `range`.
    static func whole(_ name: String, _ path: WritableKeyPath<Root, Int>, in range: ClosedRange<Int>) -> Self {
        Self(name: name) { root, value in root[keyPath: path] = try wholeNumber(value, name: name, in: range) }
    }

    /// A whole number within `range`, kept as a `Double` (metres, seconds).
    static func whole(_ name: String, _ path: WritableKeyPath<Root, Double>, in range: ClosedRange<Int>) -> Self {
        Self(name: name) { root, value in
            root[keyPath: path] = Double(try wholeNumber(value, name: name, in: range))
        }
    }

    /// A whole number within `range`, or `off` for no limit at all.
    static func limit(_ name: String, _ path: WritableKeyPath<Root, Int?>, in range: ClosedRange<Int>) -> Self {
        Self(name: name) { root, value in
            guard !value.isEmpty else { return }
            root[keyPath: path] = value == "off" ? nil : try wholeNumber(value, name: name, in: range)
        }
    }

    /// `on` or `off`.
    static func onOff(_ name: String, _ path: WritableKeyPath<Root, Bool>) -> Self {
        Self(name: name) { root, value in
            guard value == "on" || value == "off" else { throw ConfigurationError("\(name) must be on or off") }
            root[keyPath: path] = value == "on"
        }
    }

    /// One of an enumeration's raw values.
    static func choice<Choice: RawRepresentable>(
        _ name: String, _ path: WritableKeyPath<Root, Choice>, saying choices: String
    ) -> Self where Choice.RawValue == String {
        Self(name: name) { root, value in
            guard let parsed = Choice(rawValue: value) else {
                throw ConfigurationError("\(name) must be \(choices), not \(value)")
            }
            root[keyPath: path] = parsed
        }
    }

    /// Anything else: the variable's own reading, for values that are set only when not empty.
    static func custom(_ name: String, _ apply: @escaping (inout Root, String) throws -> Void) -> Self {
        Self(name: name) { root, value in
            guard !value.isEmpty else { return }
            try apply(&root, value)
        }
    }
}

/// A whole number within `range`, or a readable error naming the variable.
func wholeNumber(_ text: String, name: String, in range: ClosedRange<Int>) throws -> Int {
    guard let value = Int(text), range.contains(value) else {
        throw ConfigurationError("\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound)")
    }
    return value
}

extension Array {
    /// Applies each declared variable that `environment` sets, in the order declared.
    func apply<Root>(_ environment: [String: String], to root: inout Root) throws
    where Element == EnvironmentSetting<Root> {
        for setting in self {
            if let value = environment[setting.name] { try setting.apply(&root, value) }
        }
    }
}
