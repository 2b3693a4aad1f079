internal import CCurl
internal import CCurlShim

/// A libcurl easy handle with the error buffer that belongs to it, reused from transfer to transfer; freed with the
/// object (`deinit`).
///
/// Not Sendable: a handle lives on the thread that made it (the loop thread, or the thread of a blocking
/// `CertificateExpiry` handshake). libcurl's callbacks receive the handle itself as their user pointer and reach the
/// transfer's `observer` through it.
package final class CurlEasy {
    let pointer: UnsafeMutableRawPointer
    /// CURLOPT_ERRORBUFFER's storage (CURL_ERROR_SIZE bytes and a terminating NUL).
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// The transfer the callbacks report to; set by `EasyConfigurator.configure`, cleared by `reset()`.
    ///
    /// Internal, and only ever read or written whole (no access spans a call): the optimizer can then prove that no
    /// two accesses overlap and drops the run-time exclusivity check that every callback would otherwise pay.
    var observer: (any TransferObserver)?
    /// True when the observer wants the incoming traffic events too (`TrafficKind.headerIn` and the like); the debug
    /// callback skips the observer for them otherwise.
    var reportsIncomingTraffic = false
    /// Where the connection facts of libcurl's verbose text are read (`ConnectionFactsSource`).
    let facts: any ConnectionFactsSource
    /// This transfer's own request header list (the run's lines plus the task's), freed by `reset()`.
    var ownHeaders: CurlHeaderList?
    /// SO_SNDBUF for a socket this transfer makes; nil leaves the kernel's default.
    var sendBuffer: Int?
    /// SO_RCVBUF for a socket this transfer makes; nil leaves the kernel's default.
    var receiveBuffer: Int?
    /// True when the open-socket callback makes TCP sockets as IPPROTO_MPTCP (`CurlSettings.multipath`).
    var multipath = false
    /// True when libcurl's verbose text goes to stderr, redacted (`-v`, `VerboseText`).
    var verbose = false
    /// True when the transfer may only use a connection libcurl already has (`TransferSettings.refusesNewConnection`):
    /// the sockopt callback then refuses a new socket before it connects.
    var refusesNewConnection = false
    /// True once libcurl wanted a new connection for a transfer that `refusesNewConnection`: it failed before any
    /// packet was sent.
    package internal(set) var refusedNewConnection = false
    /// The handle's place in its multi handle's table while added, -1 otherwise.
    var multiSlot = -1
    /// The cookie store the handle is attached to (CURLOPT_SHARE), held while it is; detached by `reset()`.
    var cookieStore: CurlCookieStore?

    /// A new handle with its error buffer.
    package init() throws(CurlError) {
        guard let easy = curl_easy_init() else { throw CurlError("curl_easy_init", message: "returned NULL") }
        pointer = easy
        errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        facts = Libcurl.connectionFactsSource
    }

    deinit {
        curl_easy_cleanup(pointer)
        errorBuffer.deallocate()
    }

    /// Clears the options, the observer and the error text left by the previous transfer (connections live in the
    /// multi handle).
    package func reset() {
        // curl_easy_reset keeps the share: detached first, so that no later transfer sends this store's cookies.
        if cookieStore != nil {
            _ = wl_easy_setopt_ptr(pointer, CURLOPT_SHARE, nil)
            cookieStore = nil
        }
        curl_easy_reset(pointer)
        errorBuffer[0] = 0
        observer = nil
        reportsIncomingTraffic = false
        ownHeaders = nil
        sendBuffer = nil
        receiveBuffer = nil
        multipath = false
        verbose = false
        refusesNewConnection = false
        refusedNewConnection = false
    }

    /// libcurl's error text for the last transfer, if it wrote one.
    package var errorText: String? {
        errorBuffer[0] == 0 ? nil : String(cString: errorBuffer)
    }

    /// The request body bytes libcurl has sent so far (CURLINFO_SIZE_UPLOAD_T).
    package func uploadedBytes() throws(CurlError) -> Int64 {
        try offset(CURLINFO_SIZE_UPLOAD_T, "CURLINFO_SIZE_UPLOAD_T")
    }

    // MARK: Options (each failure names the option)

    func set(_ option: CURLoption, _ value: Int, _ name: @autoclosure () -> String) throws(CurlError) {
        try check(wl_easy_setopt_long(pointer, option, value), "curl_easy_setopt(\(name()))")
    }

    func set(_ option: CURLoption, offset value: Int64, _ name: @autoclosure () -> String) throws(CurlError) {
        try check(wl_easy_setopt_off(pointer, option, curl_off_t(value)), "curl_easy_setopt(\(name()))")
    }

    func set(_ option: CURLoption, _ value: String, _ name: @autoclosure () -> String) throws(CurlError) {
        try check(wl_easy_setopt_str(pointer, option, value), "curl_easy_setopt(\(name()))")
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?, _ name: @autoclosure () -> String)
        throws(CurlError) {
        try check(wl_easy_setopt_ptr(pointer, option, value), "curl_easy_setopt(\(name()))")
    }

    func set(_ option: CURLoption, list: CurlHeaderList?, _ name: @autoclosure () -> String) throws(CurlError) {
        try check(wl_easy_setopt_slist(pointer, option, list?.list), "curl_easy_setopt(\(name()))")
    }

    /// Throws the code's error with this handle's error buffer, when it is not CURLE_OK.
    @inline(__always)
    func check(_ code: CURLcode, _ operation: @autoclosure () -> String) throws(CurlError) {
        guard code == CURLE_OK else { throw CurlError(easy: code, operation(), detail: errorText) }
    }

    // MARK: Facts (each failure names the info)

    func long(_ info: CURLINFO, _ name: @autoclosure () -> String) throws(CurlError) -> Int {
        var value = 0
        try check(wl_easy_getinfo_long(pointer, info, &value), "curl_easy_getinfo(\(name()))")
        return value
    }

    func offset(_ info: CURLINFO, _ name: @autoclosure () -> String) throws(CurlError) -> Int64 {
        var value: curl_off_t = 0
        try check(wl_easy_getinfo_off(pointer, info, &value), "curl_easy_getinfo(\(name()))")
        return Int64(value)
    }

    /// A string fact; nil when libcurl has none (a NULL or empty string).
    func string(_ info: CURLINFO, _ name: @autoclosure () -> String) throws(CurlError) -> String? {
        var value: UnsafePointer<CChar>?
        try check(wl_easy_getinfo_str(pointer, info, &value), "curl_easy_getinfo(\(name()))")
        guard let value, value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    /// The handle's address as libcurl's callbacks and the multi handle see it.
    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}
