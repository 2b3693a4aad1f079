import WirelensCore
import WirelensCurl

/// Why a transfer failed, as far as the engine and the callbacks know beside libcurl's code: a libcurl call about it
/// that failed, the reason the engine aborted it, a local file that could not be read or written.
///
/// `error` makes the transaction's error from these and libcurl's result, a pure function of its arguments.
struct TransferFailure: Equatable {
    /// A libcurl call about the transfer failed (perform, poll, remove, getinfo): its description, the first.
    var engine: String?
    /// Why the engine ended the transfer itself (a timeout or a cancel).
    var abortReason: ErrorClass?
    /// A local file the body was read from or the response written to failed: one line naming it.
    var local: String?

    /// The libcurl failure of a transfer: its CURLcode and its text (the error buffer's, else the code's).
    struct Curl: Equatable {
        let code: Int
        let text: String
    }

    /// The transaction's error: a failing libcurl call (class other) before the engine's own abort (`abortError`
    /// words it) before libcurl's failure; that one is the hop's `refusal` (protocol), the local failure (file), or
    /// libcurl's code classified, whose text, for a name DNS over HTTPS (`dohURL`) did not resolve before any
    /// connection was ready, says why the first DoH request failed (`dohFailure`). Nil when nothing failed.
    func error(curl: Curl?, refusal: String?, connected: Bool, dohURL: String?, dohFailure: String?,
               abortError: (ErrorClass) -> TransferError) -> TransferError? {
        if let engine { return TransferError(errorClass: .other, message: engine) }
        if let abortReason { return abortError(abortReason) }
        guard let curl else { return nil }
        if let refusal { return TransferError(errorClass: .protocol, curlCode: curl.code, message: refusal) }
        if let local { return TransferError(errorClass: .file, curlCode: curl.code, message: local) }
        var text = curl.text
        let errorClass = CurlErrorMap.classify(code: curl.code, connected: connected, message: text)
        if let dohURL, !connected, let dohFailure {
            // libcurl says only that the name could not be resolved; the DoH request's own failure says why.
            text = "DNS over HTTPS via \(Redactor.url(dohURL)) failed: \(dohFailure) (\(text))"
        }
        return TransferError(errorClass: errorClass, curlCode: curl.code, message: text)
    }
}
