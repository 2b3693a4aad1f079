import Foundation
import WirelensCore

/// Formats progress snapshots as one line of text: a bar redrawn in place on a terminal, or a plain line
/// for logs (the CLI's progress display, `ProgressTicker`). Pure, so that the display's text is tested without a
/// terminal.
enum ProgressLine {
    /// A line with a bar, for a terminal `width` columns wide (no newline; the caller redraws it in place):
    /// `[=====>      ]  42% 3.2 MiB/8.0 MiB 720 KB/s ETA 7s  seg 6/16 +4 !1`.
    static func bar(_ p: ProgressSnapshot, width: Int) -> String {
        let tail = details(p)
        guard let total = p.totalBytes, total > 0 else { return String(tail.prefix(max(1, width - 1))) }
        let fraction = min(1, max(0, Double(p.bytes) / Double(total)))
        let percent = String(Int((fraction * 100).rounded(.down))).leftPadded(to: 3) + "%"
        let room = width - 1 - tail.count - percent.count - 4
        guard room >= 10 else { return String((percent + " " + tail).prefix(max(1, width - 1))) }
        let cells = min(room, 40)
        let filled = Int((fraction * Double(cells)).rounded(.down))
        let head = filled < cells && filled > 0 ? ">" : ""
        let body = String(repeating: "=", count: max(0, filled - head.count)) + head
        return "[" + body + String(repeating: " ", count: cells - body.count) + "] " + percent + " " + tail
    }

    /// A plain line for a log (stderr not a terminal): `progress 12.0s 3.2 MiB/8.0 MiB (40%) 720 KB/s ETA 7s ...`.
    static func plain(_ p: ProgressSnapshot) -> String {
        var parts = ["progress", DurationText.format(micros: p.elapsedMicros)]
        if let total = p.totalBytes, total > 0 {
            let percent = Int((min(1, Double(p.bytes) / Double(total)) * 100).rounded(.down))
            parts.append("\(ByteSize.format(p.bytes))/\(ByteSize.format(total)) (\(percent)%)")
        } else {
            parts.append(ByteSize.format(p.bytes))
        }
        if let rate = p.bytesPerSecond { parts.append(ByteSize.formatRate(rate)) }
        if let eta = p.etaSeconds { parts.append("ETA " + duration(eta)) }
        if let s = p.segments {
            parts.append("segments \(s.done) done, \(s.inFlight) in flight, \(s.failed) failed")
        }
        return parts.joined(separator: " ")
    }

    /// The figures after the bar: bytes, rate, ETA and segment counts.
    static func details(_ p: ProgressSnapshot) -> String {
        var parts: [String] = []
        if let total = p.totalBytes { parts.append("\(ByteSize.format(p.bytes))/\(ByteSize.format(total))") }
        else { parts.append(ByteSize.format(p.bytes)) }
        if let rate = p.bytesPerSecond { parts.append(ByteSize.formatRate(rate)) }
        if let eta = p.etaSeconds { parts.append("ETA " + duration(eta)) }
        if let s = p.segments { parts.append("seg \(s.done) done +\(s.inFlight) !\(s.failed)") }
        return parts.joined(separator: " ")
    }

    /// Whole seconds as `7s`, `3m05s` or `2h04m`.
    static func duration(_ seconds: Double) -> String {
        let s = Int(min(seconds, 359_999).rounded(.up))
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m" + String(format: "%02ds", s % 60) }
        return "\(s / 3600)h" + String(format: "%02dm", (s % 3600) / 60)
    }
}

extension String {
    /// The string with spaces in front up to `width` characters.
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
