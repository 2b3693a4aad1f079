/// ANSI SGR colouring that leaves text untouched when colour is off.
struct ANSIStyle: Sendable {
    /// The SGR parameters used by the text report.
    enum Tone: String, Sendable {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case green = "32"
        case yellow = "33"
        case blue = "34"
        case magenta = "35"
        case cyan = "36"
        case gray = "90"
        case brightCyan = "96"
    }

    /// When false, `paint` returns its text unchanged, so no escape byte is ever written.
    let enabled: Bool

    /// The text wrapped in the tone's SGR sequence and a reset.
    func paint(_ text: String, _ tone: Tone) -> String {
        guard enabled, !text.isEmpty else { return text }
        return "\u{1B}[\(tone.rawValue)m\(text)\u{1B}[0m"
    }
}
