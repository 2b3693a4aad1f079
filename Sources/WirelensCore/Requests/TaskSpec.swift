/// One task of a run: a URL, a method, a body and where the answer's body goes; the engine adds the redirects and
/// retries.
package struct TaskSpec: Sendable, Equatable {
    package var url: String
    package var method: String
    package var body: BodySource
    /// Where the response body goes.
    package var response: ResponseSink
    /// Request headers of this task alone (a segment's Content-Range, a form's Content-Type, a resume's Range);
    /// each replaces a run-wide header of the same name.
    package var headers: [HeaderField]
    /// How the body part goes out (nil: the request has none), which decides `Expect: 100-continue` and what a
    /// redirect does to the request, as in curl.
    package var bodyKind: BodyKind?
    /// True when the user named the method (curl's `-X`): every redirect hop sends it, as curl sends its
    /// CURLOPT_CUSTOMREQUEST on every request, even where the hop drops the body.
    package var keepsMethod: Bool

    /// A task whose body goes out as its method's does (`BodyKind.inferred`) and whose method redirects may change.
    package init(url: String, method: String = "GET", body: BodySource = .none, response: ResponseSink,
                headers: [HeaderField] = []) {
        self.url = url
        self.method = method
        self.body = body
        self.response = response
        self.headers = headers
        bodyKind = BodyKind.inferred(method: method, hasBody: body != .none)
        keepsMethod = false
    }

    /// A task whose response body goes to the file at `outputPath` (nil discards it); with `resumeOutput`, a 206 is
    /// appended to it (see `ResponseSink.file`).
    package init(url: String, method: String = "GET", body: BodySource = .none, outputPath: String? = nil,
                headers: [HeaderField] = [], resumeOutput: Bool = false) {
        self.init(url: url, method: method, body: body,
                  response: outputPath.map { .file(path: $0, resume: resumeOutput) } ?? .discard, headers: headers)
    }

    /// The file the response body goes to, if any; setting a path makes the sink that file (nil: discard).
    package var outputPath: String? {
        get { if case .file(let path, _) = response { path } else { nil } }
        set { response = newValue.map { .file(path: $0, resume: resumeOutput) } ?? .discard }
    }

    /// True when a 206 answer is appended to the output file instead of replacing it (a resumed download); any
    /// other answer still replaces the file. Only a file sink resumes.
    package var resumeOutput: Bool {
        get { if case .file(_, let resume) = response { resume } else { false } }
        set { if case .file(let path, _) = response { response = .file(path: path, resume: newValue) } }
    }
}
