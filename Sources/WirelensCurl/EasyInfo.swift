internal import CCurl
// With CCurlShim: see Libcurl.swift.
internal import CCurlShim
import WirelensCore

/// What libcurl reports about a finished transfer through curl_easy_getinfo.
package struct EasyInfo {
    package var timers = CurlTimers()
    package var numConnects = 0
    package var httpVersion = 0
    package var primaryIP: String?
    package var primaryPort: Int?
    package var localIP: String?
    package var localPort: Int?
    package var redirectURL: String?
    package var requestSize: Int64 = 0
    package var headerSize: Int64 = 0
    /// The response body's bytes as they came (CURLINFO_SIZE_DOWNLOAD_T: before content decoding), when asked for.
    package var bodyBytesReceived: Int64?

    /// No facts (a transfer whose facts could not be read).
    package init() {}

    /// Reads the facts of a finished transfer; the addresses only when `addresses` is true (the prerequest
    /// callback usually had them already, and they are strings). A getinfo that fails throws, naming the info.
    /// `receivedBody` reads the body's bytes as they came too (`bodyBytesReceived`).
    package init(_ easy: CurlEasy, addresses: Bool = true, receivedBody: Bool = false) throws(CurlError) {
        timers = CurlTimers(
            nameLookup: try easy.offset(CURLINFO_NAMELOOKUP_TIME_T, "CURLINFO_NAMELOOKUP_TIME_T"),
            connect: try easy.offset(CURLINFO_CONNECT_TIME_T, "CURLINFO_CONNECT_TIME_T"),
            appConnect: try easy.offset(CURLINFO_APPCONNECT_TIME_T, "CURLINFO_APPCONNECT_TIME_T"),
            preTransfer: try easy.offset(CURLINFO_PRETRANSFER_TIME_T, "CURLINFO_PRETRANSFER_TIME_T"),
            startTransfer: try easy.offset(CURLINFO_STARTTRANSFER_TIME_T, "CURLINFO_STARTTRANSFER_TIME_T"),
            total: try easy.offset(CURLINFO_TOTAL_TIME_T, "CURLINFO_TOTAL_TIME_T"))
        numConnects = try easy.long(CURLINFO_NUM_CONNECTS, "CURLINFO_NUM_CONNECTS")
        httpVersion = try easy.long(CURLINFO_HTTP_VERSION, "CURLINFO_HTTP_VERSION")
        if addresses {
            primaryIP = try easy.string(CURLINFO_PRIMARY_IP, "CURLINFO_PRIMARY_IP")
            primaryPort = try easy.long(CURLINFO_PRIMARY_PORT, "CURLINFO_PRIMARY_PORT").nonZero
            localIP = try easy.string(CURLINFO_LOCAL_IP, "CURLINFO_LOCAL_IP")
            localPort = try easy.long(CURLINFO_LOCAL_PORT, "CURLINFO_LOCAL_PORT").nonZero
        }
        redirectURL = try easy.string(CURLINFO_REDIRECT_URL, "CURLINFO_REDIRECT_URL")
        requestSize = Int64(try easy.long(CURLINFO_REQUEST_SIZE, "CURLINFO_REQUEST_SIZE"))
        headerSize = Int64(try easy.long(CURLINFO_HEADER_SIZE, "CURLINFO_HEADER_SIZE"))
        if receivedBody { bodyBytesReceived = try easy.offset(CURLINFO_SIZE_DOWNLOAD_T, "CURLINFO_SIZE_DOWNLOAD_T") }
    }

    /// The protocol name as Apple's networkProtocolName gives it.
    package var protocolName: String? {
        switch httpVersion {
        case 1: "http/1.0"
        case 2: "http/1.1"
        case 3: "h2"
        case 30: "h3"
        default: nil
        }
    }
}

private extension Int {
    /// The value when positive, nil otherwise (libcurl's "no port").
    var nonZero: Int? { self > 0 ? self : nil }
}
