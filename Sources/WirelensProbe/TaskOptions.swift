import WirelensCore

/// The options of some tasks on an engine shared with tasks that want other ones (the checks of `serve`, each with
/// its own headers, timeouts, TLS settings and `keep_alive`).
///
/// The engine's own options still set what belongs to the whole engine: its concurrency, its connection limits and
/// its pool. Everything a transfer asks of its easy handle and everything its lifecycle decides (redirects,
/// retries, timeouts, reuse) comes from the task's options. Made once and kept (a check keeps its object for the
/// life of the process): the engine builds what the options need (libcurl header lists, lifecycle rules) once per
/// object.
package final class TaskOptions: Sendable {
    package let options: ProbeOptions

    /// Options for tasks; headers that would split a request are refused here, as the engine refuses its own.
    package init(_ options: ProbeOptions) throws(ProbeError) {
        try Self.checkHeaders(options)
        self.options = options
    }

    /// Throws when a header (or the User-Agent) carries CR, LF or NUL.
    static func checkHeaders(_ options: ProbeOptions) throws(ProbeError) {
        for field in options.headers + [HeaderField(name: "User-Agent", value: options.userAgent)] {
            if let problem = RequestTextCheck.problem(name: field.name, value: field.value) {
                throw ProbeError.invalidHeader(problem)
            }
        }
    }
}
