import ArgumentParser
import WirelensCheck

/// Where an instance stands among several that check the same things: `--vantage NAME` labels its samples and
/// history rows, `--shard K/N` keeps its share of the configuration's checks.
struct FleetFlags: ParsableArguments {
    @Option(help: "Name the place this instance checks from: the 'vantage' label of every sample and history row (letters, digits, - _ . :).")
    var vantage: String?

    @Option(help: "Run only the checks of shard K of N (1-based): those whose name's FNV-1a 64 hash modulo N is K-1.")
    var shard: String?

    /// The checked flags; a refusal is one line (exit 2).
    func checked() throws(UsageError) -> (vantage: String?, shard: Shard?) {
        var name: String?
        if let vantage {
            switch Vantage.check(vantage) {
            case .success(let checked): name = checked
            case .failure(let refusal): throw UsageError(refusal.description)
            }
        }
        var part: Shard?
        if let shard {
            switch Shard.parse(shard) {
            case .success(let parsed): part = parsed
            case .failure(let refusal): throw UsageError(refusal.description)
            }
        }
        return (name, part)
    }
}
