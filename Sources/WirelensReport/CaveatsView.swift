import WirelensCore

/// The "Caveats" section of a text report: a bold heading and each caveat wrapped as a dimmed bullet.
///
/// A probe report shows only the caveats that change how a number on the screen reads, one line each
/// (`CaveatBrief`); `full` shows every caveat's whole text, as the JSON keeps them.
struct CaveatsView {
    let style: ANSIStyle
    var full = true

    /// The section's lines for a probe report, preceded by an empty line; none when no caveat applies.
    func lines(for report: Report) -> [String] {
        guard !full else { return lines(for: report.caveats) }
        let briefs = report.caveats.compactMap { CaveatBrief.line(for: $0, in: report) }
        guard !briefs.isEmpty else { return [] }
        var out = ["", style.paint("Caveats", .bold) + style.paint(" (all of them: --caveats)", .dim)]
        for brief in briefs {
            out += TextLayout.wrap(TextLayout.sanitize(brief), firstPrefix: "  • ", restPrefix: "    ")
                .map { style.paint($0, .dim) }
        }
        return out
    }

    /// The section's lines with every caveat in full, preceded by an empty line; none when there are no caveats.
    func lines(for caveats: [Caveat]) -> [String] {
        guard !caveats.isEmpty else { return [] }
        var out = ["", style.paint("Caveats", .bold)]
        for caveat in caveats {
            out += TextLayout.wrap(TextLayout.sanitize(caveat.text), firstPrefix: "  • ", restPrefix: "    ")
                .map { style.paint($0, .dim) }
        }
        return out
    }
}
