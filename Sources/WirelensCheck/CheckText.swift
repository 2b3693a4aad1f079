import WirelensCore

/// Renders check results for people: one line per check, then one indented line per failing assertion.
package enum CheckText {
    /// `PASS name  200  total 12.3ms` or `FAIL name …` followed by `  ttfb: 950ms, limit max 800ms`.
    package static func render(_ results: [CheckResult]) -> String {
        var out = ""
        for result in results {
            var line = "\(result.passed ? "PASS" : "FAIL")  \(result.name)"
            if let record = result.record {
                line += "  \(record.statusCode.map(String.init) ?? "---")  total \(DurationText.format(micros: record.duration))"
            }
            out += line + "\n"
            if let failure = result.failure { out += "  could not run: \(failure)\n" }
            for assertion in result.failedAssertions {
                out += "  \(assertion.name): \(assertion.measured), limit \(assertion.limit)\n"
            }
        }
        let failed = results.filter { !$0.passed }.count
        out += "\(results.count - failed) of \(results.count) checks passed\n"
        return out
    }
}
