/// Passes libcurl's socket closes (CURLOPT_CLOSESOCKETFUNCTION) to whoever keeps per-connection tables.
///
/// Owned by a `CurlMulti` and alive as long as its handle, so the pointer every connection keeps stays valid until
/// `curl_multi_cleanup` closed the last one.
final class SocketCloseRelay {
    var onClose: ((Int32) -> Void)?

    func closing(_ socket: Int32) {
        onClose?(socket)
    }
}
