internal import CCurl
internal import CCurlShim

/// A libcurl share handle holding one cookie engine (CURL_LOCK_DATA_COOKIE) for the easy handles given it in their
/// `TransferSettings`; freed with the object.
///
/// Not Sendable: it lives on the loop thread, as the easy handles that use it (so libcurl needs no lock functions).
/// Easy handles hold it while they use it (`CurlEasy.reset()` detaches them), so it outlives them.
package final class CurlCookieStore {
    let pointer: UnsafeMutableRawPointer

    /// A store with the cookies of these files (CURLOPT_COOKIEFILE: Netscape format or Set-Cookie lines, read by
    /// libcurl as curl reads `-b FILE`; "" adds none).
    package init(files: [String]) throws(CurlError) {
        guard let share = wl_share_cookies() else {
            throw CurlError("curl_share_init", message: "no share handle for cookies")
        }
        pointer = share
        guard !files.isEmpty else { return }
        let easy = try attached()
        for file in files { try easy.set(CURLOPT_COOKIEFILE, file, "CURLOPT_COOKIEFILE") }
        try easy.set(CURLOPT_COOKIELIST, "RELOAD", "CURLOPT_COOKIELIST(RELOAD)")
        try easy.set(CURLOPT_SHARE, pointer: nil, "CURLOPT_SHARE")
    }

    deinit {
        curl_share_cleanup(pointer)
    }

    /// Writes every cookie of the store to `path` in the Netscape format libcurl writes (CURLOPT_COOKIEJAR, by
    /// CURLOPT_COOKIELIST "FLUSH"); the file's mode is kept (libcurl writes a temporary file and renames it).
    package func write(to path: String) throws(CurlError) {
        let easy = try attached()
        try easy.set(CURLOPT_COOKIEJAR, path, "CURLOPT_COOKIEJAR")
        try easy.set(CURLOPT_COOKIELIST, "FLUSH", "CURLOPT_COOKIELIST(FLUSH)")
        // Unset, so that the handle's cleanup does not write the jar a second time.
        try easy.set(CURLOPT_COOKIEJAR, pointer: nil, "CURLOPT_COOKIEJAR")
        try easy.set(CURLOPT_SHARE, pointer: nil, "CURLOPT_SHARE")
    }

    /// Forgets every cookie (CURLOPT_COOKIELIST "ALL").
    package func clear() throws(CurlError) {
        let easy = try attached()
        try easy.set(CURLOPT_COOKIELIST, "ALL", "CURLOPT_COOKIELIST(ALL)")
        try easy.set(CURLOPT_SHARE, pointer: nil, "CURLOPT_SHARE")
    }

    /// An easy handle of its own on the store, for the operations libcurl offers only through one.
    private func attached() throws(CurlError) -> CurlEasy {
        let easy = try CurlEasy()
        try easy.set(CURLOPT_SHARE, pointer: pointer, "CURLOPT_SHARE")
        return easy
    }
}
