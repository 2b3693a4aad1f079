import ArgumentParser
import WirelensCore

/// curl's `--retry N` and `--retry-max-time`, shared by `probe`, `download` and `upload` (each decides what a retry
/// repeats); `--retries`, the older spelling, is still taken, hidden from the help.
struct RetryFlags: ParsableArguments {
    @Option(name: .customLong("retry"),
            help: "Retries of a failed transfer: probe a task (default 0), download an attempt (with --resume), upload a segment (default 3).")
    var retry: Int?

    @Option(name: .customLong("retries"), help: .hidden)
    var retries: Int?

    @Option(name: .customLong("retry-max-time"),
            help: "Start no retry once this long has passed since the task began (as curl's; the attempt may run past it).")
    var retryMaxTime: FlagValue<PositiveDuration>?

    /// The retries asked for, nil when neither spelling was given; a negative count, or both spellings, is a usage
    /// error.
    func count() throws(UsageError) -> Int? {
        if retry != nil, retries != nil { throw UsageError("give --retry once (--retries is its older spelling)") }
        guard let count = retry ?? retries else { return nil }
        guard count >= 0 else { throw UsageError("--retry must be 0 or more, not \(count)") }
        return count
    }

    /// `--retry-max-time` in µs, nil when not given.
    func maxTime() throws(UsageError) -> Int64? {
        try retryMaxTime?.value("--retry-max-time").micros
    }

    /// Sets the retry limits in `options`: `count` retries and the time they may start in.
    func apply(count: Int, to options: inout ProbeOptions) throws(UsageError) {
        options.retry.maxRetries = count
        options.retry.maxTime = try maxTime()
    }
}
