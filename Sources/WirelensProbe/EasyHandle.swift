import CCurl
import CCurlShim

/// A libcurl easy handle with the error buffer that belongs to it; both are reused from transfer to transfer.
struct EasyHandle {
    let easy: UnsafeMutableRawPointer
    /// CURLOPT_ERRORBUFFER's storage (CURL_ERROR_SIZE bytes and a terminating NUL).
    let errorBuffer: UnsafeMutablePointer<CChar>

    /// A new handle, or nil when libcurl cannot make one.
    static func make() -> EasyHandle? {
        guard let easy = curl_easy_init() else { return nil }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        buffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        return EasyHandle(easy: easy, errorBuffer: buffer)
    }

    /// Clears the options and the error text left by the previous transfer (connections live in the multi handle).
    func reset() {
        curl_easy_reset(easy)
        errorBuffer[0] = 0
    }

    /// Frees the handle and its buffer.
    func destroy() {
        curl_easy_cleanup(easy)
        errorBuffer.deallocate()
    }
}
