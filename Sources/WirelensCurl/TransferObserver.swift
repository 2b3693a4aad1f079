/// What one transfer hears from libcurl's callbacks, in Swift types only.
///
/// Every method runs on the thread that drives the multi handle, inside `curl_multi_perform`. The easy handle holds
/// its observer until `CurlEasy.reset()`.
package protocol TransferObserver: AnyObject {
    /// A response header line, status lines included.
    func onHeader(_ bytes: UnsafeBufferPointer<UInt8>)
    /// A chunk of the response body; returns the count consumed (less makes libcurl fail the transfer).
    func onBody(_ data: UnsafeRawPointer?, count: Int) -> Int
    /// Fills libcurl's upload buffer: the count written, 0 at the end of the body, nil to abort the transfer.
    func onRead(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int?
    /// Moves the body's read position; false when it cannot.
    func onSeek(to offset: Int64) -> Bool
    /// Whether libcurl may open a socket to `address` (4 or 16 bytes, network order). Asked only when the transfer
    /// was configured with `TransferSettings.refusesLinkLocal`.
    func mayConnect(to address: ArraySlice<UInt8>) -> Bool
    /// libcurl made a socket for a new connection of this transfer.
    func onSocketOpened(_ socket: Int32)
    /// The connection is ready and the request is about to be sent (CURLOPT_PREREQFUNCTION).
    func onConnectionReady(remoteIP: String?, localIP: String?, remotePort: Int, localPort: Int)
    /// A fact about the transfer's connection (`ConnectionFactsSource`).
    func onConnectionFact(_ fact: ConnectionFact)
    /// An event of libcurl's verbose output other than its informational text; the incoming ones only when the
    /// transfer was configured with `TransferSettings.reportsIncomingTraffic`.
    func onTraffic(_ kind: TrafficKind, _ bytes: UnsafeBufferPointer<UInt8>)
}

/// The kinds of libcurl's verbose output (curl_infotype) beyond its informational text.
package enum TrafficKind: Sendable {
    case headerOut
    case dataOut
    case headerIn
    case dataIn
    case tlsIn
    case tlsOut
}
