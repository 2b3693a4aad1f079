/// How a request's body part goes out, in curl's terms: as a POST or as an upload.
///
/// curl decides two things by it, and Wirelens decides them the same way: whether `Expect: 100-continue` is sent
/// (an upload always asks, a POST only above 1 MiB; libcurl applies that rule itself once the transfer is set up as
/// one or the other), and what a 301, 302 or 303 does to the request (`RedirectPolicy.next`).
package enum BodyKind: Sendable, Equatable {
    /// `-d`, `--data-binary`, `-F`: libcurl's CURLOPT_POST, whatever the method.
    case post
    /// `-T`, `--upload-size`: libcurl's CURLOPT_UPLOAD, whatever the method.
    case upload

    /// The kind a request of this method sends its body as when nothing else says: a POST for POST, an upload for
    /// any other method with a body or for PUT; nil (no body part) for a bodiless request of any other method.
    package static func inferred(method: String, hasBody: Bool) -> BodyKind? {
        if method == "POST" { return .post }
        return hasBody || method == "PUT" ? .upload : nil
    }
}
