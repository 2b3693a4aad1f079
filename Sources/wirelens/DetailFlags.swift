import ArgumentParser
import WirelensCore

/// `--detail`: how much of each transaction a JSON report holds, for the commands that write probe reports.
struct DetailFlags: ParsableArguments {
    @Option(name: .customLong("detail"),
            help: "JSON: standard (timestamps, phases, connection, the kernel's summary and the verdict) or full (adds offsetsMs, libcurl's curlTimersUs and the kernel's tcp samples, for debugging a measurement).")
    var level: ReportDetail = .standard
}

extension ReportDetail: ExpressibleByArgument {}
