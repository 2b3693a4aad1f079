/// How long the engine's loop may wait in poll before it has something of its own to do: the next deadline of its
/// transfers and parked tasks, and the next look at an upload's acknowledgement, at most a second.
enum PollTimeout {
    /// The longest wait (ms): commands from other threads wake the loop sooner, through its eventfd.
    static let longest: Int64 = 1000

    /// The wait (ms) for the earliest `deadline` (monotonic ns; nil: none) and the next upload look in `lookMillis`;
    /// `now` is read only when there is a deadline. The time left is cut to whole milliseconds (toward zero) and one
    /// is added, so that poll does not wake before the deadline; a deadline more than a millisecond past waits not at all.
    static func millis(deadline: Int64?, lookMillis: Int64, now: () -> Int64) -> Int32 {
        guard let deadline else { return Int32(min(longest, lookMillis)) }
        let millis = (deadline - now()) / 1_000_000 + 1
        return Int32(max(0, min(longest, lookMillis, millis)))
    }
}
