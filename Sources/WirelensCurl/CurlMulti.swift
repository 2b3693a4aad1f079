internal import CCurl
internal import CCurlShim

/// A libcurl multi handle and the easy handles added to it; freed with the object (`deinit`).
///
/// Not Sendable: one thread drives it (`CurlLoop`'s). Every call's return code is checked and thrown as a
/// `CurlError`. An added easy handle is held until it is removed, so libcurl's callbacks can reach it.
package final class CurlMulti {
    /// The connection limits and multiplexing of a multi handle.
    package struct Settings: Sendable, Equatable {
        /// CURLMOPT_MAX_HOST_CONNECTIONS (nil: libcurl's default, unlimited).
        package var maxHostConnections: Int?
        /// CURLMOPT_MAX_TOTAL_CONNECTIONS (nil: unlimited).
        package var maxTotalConnections: Int?
        /// CURLMOPT_PIPELINING: HTTP/2 multiplexing or nothing.
        package var multiplex: Bool
        /// CURLMOPT_MAXCONNECTS: the size of the connection cache.
        package var connectionCache: Int

        package init(maxHostConnections: Int?, maxTotalConnections: Int?, multiplex: Bool, connectionCache: Int) {
            self.maxHostConnections = maxHostConnections
            self.maxTotalConnections = maxTotalConnections
            self.multiplex = multiplex
            self.connectionCache = connectionCache
        }
    }

    let pointer: UnsafeMutableRawPointer
    /// The easy handles added and not removed yet (each knows its slot: `CurlEasy.multiSlot`), so they live while
    /// libcurl may call them; a flat array, so that adding and removing costs no hashing.
    private var added: [CurlEasy] = []
    private let closes = SocketCloseRelay()

    /// A multi handle with the settings' options.
    package init(_ settings: Settings) throws(CurlError) {
        try Libcurl.initialize()
        guard let multi = curl_multi_init() else { throw CurlError("curl_multi_init", message: "returned NULL") }
        pointer = multi
        do {
            if let limit = settings.maxHostConnections {
                try set(CURLMOPT_MAX_HOST_CONNECTIONS, limit, "CURLMOPT_MAX_HOST_CONNECTIONS")
            }
            if let limit = settings.maxTotalConnections {
                try set(CURLMOPT_MAX_TOTAL_CONNECTIONS, limit, "CURLMOPT_MAX_TOTAL_CONNECTIONS")
            }
            try set(CURLMOPT_PIPELINING, settings.multiplex ? wl_pipe_multiplex() : wl_pipe_nothing(),
                    "CURLMOPT_PIPELINING")
            try set(CURLMOPT_MAXCONNECTS, settings.connectionCache, "CURLMOPT_MAXCONNECTS")
        } catch {
            curl_multi_cleanup(multi)
            throw error
        }
    }

    deinit {
        // libcurl wants every easy handle removed before the multi handle goes; the cleanup closes the cached
        // connections (the close-socket relay hears each), then the easy handles are freed with `added`.
        for easy in added { curl_multi_remove_handle(pointer, easy.pointer) }
        curl_multi_cleanup(pointer)
    }

    func set(_ option: CURLMoption, _ value: Int, _ name: String) throws(CurlError) {
        try CurlError.check(wl_multi_setopt_long(pointer, option, value), "curl_multi_setopt(\(name))")
    }

    /// Called with each socket libcurl closes, on the thread that drives the handle (also from `deinit`).
    package var onSocketClose: ((Int32) -> Void)? {
        get { closes.onClose }
        set { closes.onClose = newValue }
    }

    /// Starts a configured transfer; its sockets' closes reach `onSocketClose`.
    package func add(_ easy: CurlEasy) throws(CurlError) {
        try easy.check(wl_easy_setopt_closesocket_cb(easy.pointer, wlCloseSocketCallback),
                       "curl_easy_setopt(CURLOPT_CLOSESOCKETFUNCTION)")
        try easy.set(CURLOPT_CLOSESOCKETDATA, pointer: Unmanaged.passUnretained(closes).toOpaque(),
                     "CURLOPT_CLOSESOCKETDATA")
        // CURLINFO_PRIVATE gives the handle back when libcurl reports the transfer done.
        try easy.set(CURLOPT_PRIVATE, pointer: easy.opaque, "CURLOPT_PRIVATE")
        try CurlError.check(curl_multi_add_handle(pointer, easy.pointer), "curl_multi_add_handle")
        easy.multiSlot = added.count
        added.append(easy)
    }

    /// Takes a transfer out (finished or not); its connection goes back to the cache or is closed.
    package func remove(_ easy: CurlEasy) throws(CurlError) {
        let slot = easy.multiSlot
        guard slot >= 0, slot < added.count, added[slot] === easy else { return }
        added[slot] = added[added.count - 1]
        added[slot].multiSlot = slot
        added.removeLast()
        easy.multiSlot = -1
        try CurlError.check(curl_multi_remove_handle(pointer, easy.pointer), "curl_multi_remove_handle")
    }

    /// Lets libcurl move every transfer as far as it can without waiting; returns the count still running.
    @discardableResult
    package func perform() throws(CurlError) -> Int {
        var running: Int32 = 0
        try CurlError.check(curl_multi_perform(pointer, &running), "curl_multi_perform")
        return Int(running)
    }

    /// Waits up to `timeoutMillis` for activity on the transfers' sockets or on `wake` (a readable descriptor).
    /// Returns true when `wake` became readable.
    package func poll(timeoutMillis: Int32, wake: Int32) throws(CurlError) -> Bool {
        var extra = curl_waitfd(fd: wake, events: Int16(CURL_WAIT_POLLIN), revents: 0)
        try CurlError.check(curl_multi_poll(pointer, &extra, 1, timeoutMillis, nil), "curl_multi_poll")
        return extra.revents & Int16(CURL_WAIT_POLLIN) != 0
    }

    /// Appends the transfers libcurl finished since the last call, with their result (nil: CURLE_OK); all messages are
    /// read before the caller acts on any.
    package func finished(into done: inout [(easy: CurlEasy, error: CurlError?)]) {
        var left: Int32 = 0
        while let message = curl_multi_info_read(pointer, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            var owner: UnsafeMutableRawPointer?
            // Set by `add` on every handle this multi handle holds (in `added`, so alive).
            guard wl_easy_getinfo_ptr(handle, CURLINFO_PRIVATE, &owner) == CURLE_OK, let owner else { continue }
            let easy = Unmanaged<CurlEasy>.fromOpaque(owner).takeUnretainedValue()
            let code = message.pointee.data.result
            done.append((easy, code == CURLE_OK ? nil : CurlError(easy: code, "transfer", detail: easy.errorText)))
        }
    }
}
