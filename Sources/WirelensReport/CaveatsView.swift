import WirelensCore

/// The "Caveats" section of a text report: a bold heading and each caveat wrapped as a dimmed bullet.
struct CaveatsView {
    let style: ANSIStyle

    /// The section's lines, preceded by an empty line; none when there are no caveats.
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
