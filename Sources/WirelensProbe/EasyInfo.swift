import CCurl
import CCurlShim
import WirelensCore

/// What libcurl reports about a finished transfer through curl_easy_getinfo.
struct EasyInfo {
    var timers = CurlTimers()
    var numConnects = 0
    var httpVersion = 0
    var primaryIP: String?
    var primaryPort: Int?
    var localIP: String?
    var localPort: Int?
    var redirectURL: String?
    var requestSize: Int64 = 0
    var headerSize: Int64 = 0

    /// Reads the facts of a finished transfer; the addresses only when `addresses` is true (the prerequest
    /// callback usually had them already, and they are strings).
    init(_ easy: UnsafeMutableRawPointer, addresses: Bool = true) {
        func long(_ info: CURLINFO) -> Int? {
            var value = 0
            return wl_easy_getinfo_long(easy, info, &value) == CURLE_OK ? value : nil
        }
        func micros(_ info: CURLINFO) -> Int64 {
            var value: curl_off_t = 0
            return wl_easy_getinfo_off(easy, info, &value) == CURLE_OK ? Int64(value) : 0
        }
        func string(_ info: CURLINFO) -> String? {
            var value: UnsafePointer<CChar>?
            guard wl_easy_getinfo_str(easy, info, &value) == CURLE_OK, let value else { return nil }
            let text = String(cString: value)
            return text.isEmpty ? nil : text
        }
        timers = CurlTimers(
            nameLookup: micros(CURLINFO_NAMELOOKUP_TIME_T), connect: micros(CURLINFO_CONNECT_TIME_T),
            appConnect: micros(CURLINFO_APPCONNECT_TIME_T), preTransfer: micros(CURLINFO_PRETRANSFER_TIME_T),
            startTransfer: micros(CURLINFO_STARTTRANSFER_TIME_T), total: micros(CURLINFO_TOTAL_TIME_T))
        numConnects = long(CURLINFO_NUM_CONNECTS) ?? 0
        httpVersion = long(CURLINFO_HTTP_VERSION) ?? 0
        if addresses {
            primaryIP = string(CURLINFO_PRIMARY_IP)
            primaryPort = long(CURLINFO_PRIMARY_PORT).flatMap { $0 > 0 ? $0 : nil }
            localIP = string(CURLINFO_LOCAL_IP)
            localPort = long(CURLINFO_LOCAL_PORT).flatMap { $0 > 0 ? $0 : nil }
        }
        redirectURL = string(CURLINFO_REDIRECT_URL)
        requestSize = Int64(long(CURLINFO_REQUEST_SIZE) ?? 0)
        headerSize = Int64(long(CURLINFO_HEADER_SIZE) ?? 0)
    }

    /// The protocol name as Apple's networkProtocolName gives it.
    var protocolName: String? {
        switch httpVersion {
        case 1: "http/1.0"
        case 2: "http/1.1"
        case 3: "h2"
        case 30: "h3"
        default: nil
        }
    }
}
