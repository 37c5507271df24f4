/// A simulation that cannot be set up as asked, in words for the person who asked.
public struct SimulationError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
