import WirelensProbe

/// A usage mistake found after parsing, with its one-line message: what a command's `validate()` throws.
struct UsageError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }

    /// Checks that `text` is an http:// or https:// URL that Wirelens can use.
    static func checkURL(_ text: String) throws(UsageError) {
        do throws(ProbeError) { _ = try TargetURL(text) } catch { throw UsageError(error.description) }
    }
}
