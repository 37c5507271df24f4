/// Comparisons of secrets (signatures, MACs, tokens) that take as long whatever the first differing byte: a forger
/// learns nothing from how long a refusal took.
public enum ConstantTime {
    public static func equal<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
