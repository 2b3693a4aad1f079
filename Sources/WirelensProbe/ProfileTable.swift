import WirelensCore
import WirelensCurl

/// The engine's task profiles: its own, for tasks submitted without options of their own, and one per task options
/// object submitted, built once (rules, libcurl settings, header lists, cookie engine) and kept while the table is
/// small.
struct ProfileTable {
    /// The engine's own options as a profile.
    let engine: TaskProfile
    private let anchor: ClockAnchor
    /// The profiles of the task options submitted so far, each with the options object it was built from (held, so
    /// that its identifier stays its own); emptied when it grows past `limit`.
    private var byOptions: [ObjectIdentifier: (owner: TaskOptions, profile: TaskProfile)] = [:]

    /// The most task options whose profiles are kept; past it the table starts again (tasks in flight hold theirs).
    static let limit = 4096

    init(options: ProbeOptions, anchor: ClockAnchor) throws(CurlError) {
        engine = try TaskProfile(options: options, anchor: anchor)
        self.anchor = anchor
    }

    /// The profile of tasks with these options (the engine's for nil), built on first use; nil when libcurl could
    /// not make its header lists.
    mutating func profile(for taskOptions: TaskOptions?) -> TaskProfile? {
        guard let taskOptions else { return engine }
        let key = ObjectIdentifier(taskOptions)
        if let known = byOptions[key] { return known.profile }
        guard let made = try? TaskProfile(options: taskOptions.options, anchor: anchor) else { return nil }
        if byOptions.count >= Self.limit { byOptions.removeAll() }
        byOptions[key] = (taskOptions, made)
        return made
    }
}
