import Foundation
import WirelensCore

/// Shows a run's progress on stderr while it lasts: a bar redrawn in place about 4 times a second on a
/// terminal, a plain line about once a second otherwise. Nothing shows before `delay` has passed, so short
/// runs stay quiet; `stop()` clears the bar.
final class ProgressTicker: Sendable {
    private let task: Task<Void, Never>
    private let terminal: Bool

    /// Starts ticking; `read` gives the current snapshot (its rate is filled in here).
    init(terminal: Bool = Console.isTerminal(STDERR_FILENO), delayMicros: Int64 = 1_000_000,
         read: @escaping @Sendable (_ elapsedMicros: Int64) -> ProgressSnapshot) {
        self.terminal = terminal
        // Sampled 4 times a second either way (the rate needs samples); plain lines go out once a second.
        let interval: UInt64 = 250_000_000
        task = Task.detached {
            let start = DispatchTime.now().uptimeNanoseconds
            var rate = ProgressRate()
            var shown = false
            var lastLine: Int64?
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: interval)
                if Task.isCancelled { break }
                let elapsed = Int64((DispatchTime.now().uptimeNanoseconds - start) / 1000)
                var snapshot = read(elapsed)
                snapshot.bytesPerSecond = rate.add(time: elapsed, bytes: snapshot.bytes)
                guard elapsed >= delayMicros else { continue }
                if terminal {
                    let line = ProgressLine.bar(snapshot, width: Self.columns())
                    Self.write("\r\u{1B}[K" + line)
                } else if lastLine.map({ elapsed - $0 >= 1_000_000 }) ?? true {
                    Self.write(ProgressLine.plain(snapshot) + "\n")
                    lastLine = elapsed
                }
                shown = true
            }
            if terminal, shown { Self.write("\r\u{1B}[K") }
        }
    }

    /// Stops ticking and clears the bar from the terminal.
    func stop() async {
        task.cancel()
        await task.value
    }

    private static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// The terminal's width (stderr's), 80 when unknown.
    private static func columns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { return Int(size.ws_col) }
        return 80
    }
}
