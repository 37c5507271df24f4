/// A benchmark that cannot go on, in words for the person running it.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}
