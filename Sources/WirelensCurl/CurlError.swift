internal import CCurl
// With CCurlShim: see Libcurl.swift.
internal import CCurlShim

/// A libcurl call that failed: the code it returned, libcurl's message for the code, what was being done, and the
/// easy handle's error buffer when libcurl wrote one.
package struct CurlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which of libcurl's code spaces `code` belongs to.
    package enum Interface: Sendable, Equatable {
        /// A CURLcode (curl_easy_*).
        case easy
        /// A CURLMcode (curl_multi_*).
        case multi
    }

    package let interface: Interface
    /// The CURLcode or CURLMcode as libcurl returned it.
    package let code: Int32
    /// What was asked of libcurl: the call, and the option or info it was about ("curl_easy_setopt(CURLOPT_URL)").
    package let operation: String
    /// libcurl's text for the code (curl_easy_strerror / curl_multi_strerror).
    package let message: String
    /// The easy handle's CURLOPT_ERRORBUFFER text, when libcurl wrote one (often more precise than `message`).
    package let detail: String?

    init(easy code: CURLcode, _ operation: String, detail: String? = nil) {
        interface = .easy
        self.code = Int32(code.rawValue)
        self.operation = operation
        message = String(cString: curl_easy_strerror(code))
        self.detail = detail.flatMap { $0.isEmpty ? nil : $0 }
    }

    init(multi code: CURLMcode, _ operation: String) {
        interface = .multi
        self.code = Int32(code.rawValue)
        self.operation = operation
        message = String(cString: curl_multi_strerror(code))
        detail = nil
    }

    /// A failure that has no libcurl code of its own (a NULL handle).
    init(_ operation: String, message: String) {
        interface = .easy
        code = -1
        self.operation = operation
        self.message = message
        detail = nil
    }

    /// "operation: message (detail)" in one line.
    package var description: String {
        "\(operation): \(detail ?? message)"
    }

    /// Throws the error of an easy code that is not CURLE_OK.
    @inline(__always)
    static func check(_ code: CURLcode, _ operation: @autoclosure () -> String) throws(CurlError) {
        guard code == CURLE_OK else { throw CurlError(easy: code, operation()) }
    }

    /// Throws the error of a multi code that is not CURLM_OK.
    @inline(__always)
    static func check(_ code: CURLMcode, _ operation: @autoclosure () -> String) throws(CurlError) {
        guard code == CURLM_OK else { throw CurlError(multi: code, operation()) }
    }
}
