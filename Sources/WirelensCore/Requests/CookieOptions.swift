/// A run's cookies as curl's `-b/--cookie` and `-c/--cookie-jar` give them: the text every request sends, the files
/// the cookie engine starts from, and the jar it is written to.
public struct CookieOptions: Sendable, Equatable {
    /// `name=value; n2=v2` sent with every request that may carry secrets (CURLOPT_COOKIE): the `-b` arguments
    /// that hold a '=', joined with "; ". A secret, never in a report.
    public var header: String?
    /// Files in the Netscape/Mozilla format or of raw Set-Cookie lines the engine starts from (CURLOPT_COOKIEFILE).
    public var files: [String] = []
    /// The file the engine's cookies are written to, in the Netscape format, when a run's tasks have ended
    /// (CURLOPT_COOKIEJAR).
    public var jar: String?
    /// The cookie engine runs: each response's Set-Cookie goes with later requests of the run that match it
    /// (redirects, the run's other URLs), as curl's with `-b FILE` or `-c`.
    public var engine = false
    /// Each run (each `Engine.run`) starts with the files' cookies only, none from an earlier run (a check's
    /// `cookies: true`).
    public var clearedPerRun = false

    public init() {}

    /// curl's rule for a `-b` argument: one holding a '=' is cookie data, anything else a file name.
    public static func isData(_ argument: String) -> Bool {
        argument.contains("=")
    }

    /// The options of these `-b` arguments (in order; data joined with "; ") and this `-c` file: the engine runs
    /// when a file or a jar is given, as curl's.
    public init(arguments: [String], jar: String?) {
        let data = arguments.filter(Self.isData)
        header = data.isEmpty ? nil : data.joined(separator: "; ")
        files = arguments.filter { !Self.isData($0) }
        self.jar = jar
        engine = !files.isEmpty || jar != nil
    }
}
