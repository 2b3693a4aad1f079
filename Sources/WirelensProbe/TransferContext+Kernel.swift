import WirelensCore
import WirelensCurl

extension TransferContext {
    /// Takes a snapshot of the kernel's facts of this transfer's connection, if it still has one; for a transfer that
    /// sends a body, the first and the `last` one also read the socket's send buffer (the kernel's auto-tuning may
    /// have grown it in between; only an upload's diagnosis uses it), and for one that receives, its receive buffer
    /// and, at every snapshot, the bytes waiting unread (a download's diagnosis uses them). Taken at `time`
    /// (monotonic ns), or now when not given: the clock is read only when there is a socket to read.
    func sampleTCP(at time: Int64? = nil, last: Bool = false) {
        guard kernel.readsTCP, let socket = kernel.socket else { return }
        if last { readMPTCP(socket) }
        let now = time ?? MonotonicClock.now()
        guard let info = TCPInfoReader.read(socket: socket) else { return }
        if request.isSent, kernel.tcp.isEmpty || last, let size = TCPInfoReader.sendBuffer(socket: socket) {
            kernel.tcp.noteSendBuffer(size)
        }
        var unread: Int?
        if !request.isSent {
            if kernel.tcp.isEmpty || last, let size = TCPInfoReader.receiveBuffer(socket: socket) {
                kernel.tcp.noteReceiveBuffer(size)
            }
            unread = SocketQuery.unreadBytes(socket)
        }
        kernel.add(info, at: now, receiveQueue: unread)
    }

    /// Ends the transfer's snapshots with `info`, taken `now` (nil: none could be read), and lets go of its socket:
    /// the next transfer on the connection took it over.
    func endTCP(with info: TCPInfo?, at now: Int64) {
        if let socket = kernel.socket { readMPTCP(socket) }
        if let info { kernel.add(info, at: now) }
        kernel.socket = nil
    }

    /// Reads the Multipath TCP facts of the connection's socket, when the run opens MPTCP sockets: at the
    /// transfer's end, where its last TCP snapshot is taken.
    fileprivate func readMPTCP(_ socket: Int32) {
        guard kernel.multipath else { return }
        kernel.mptcp = MPTCPInfoReader.read(socket: socket, sendsBody: request.isSent)
    }
}
