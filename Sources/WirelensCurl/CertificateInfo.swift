internal import CCurl
internal import CCurlShim

/// The certificate facts a TLS server presents, read through one connect-only libcurl handshake
/// (CURLOPT_CONNECT_ONLY + CURLOPT_CERTINFO).
package enum CertificateInfo {
    /// What the handshake may use, from the run's options.
    package struct Settings: Sendable {
        package var connectTimeoutMillis: Int
        package var totalTimeoutMillis: Int?
        package var caFile: String?
        package var proxy: String?
        package var insecure: Bool

        package init(connectTimeoutMillis: Int, totalTimeoutMillis: Int?, caFile: String?, proxy: String?, insecure: Bool) {
            self.connectTimeoutMillis = connectTimeoutMillis
            self.totalTimeoutMillis = totalTimeoutMillis
            self.caFile = caFile
            self.proxy = proxy
            self.insecure = insecure
        }
    }

    /// Why the facts could not be read.
    package enum Failure: Error {
        /// libcurl could not be initialised (curl_global_init).
        case initialization(CurlError)
        /// libcurl refused an option.
        case options(CurlError)
        /// The handshake failed.
        case handshake(CurlError)
        /// libcurl gave no certificate information.
        case noInformation
    }

    /// The text of the "Expire date:" field of each certificate of the chain (blocking).
    package static func expireDates(url: String, settings: Settings) throws(Failure) -> [String] {
        do {
            try Libcurl.initialize()
        } catch {
            throw .initialization(error)
        }
        let easy: CurlEasy
        do {
            easy = try CurlEasy()
            try easy.set(CURLOPT_URL, url, "CURLOPT_URL")
            try easy.set(CURLOPT_CONNECT_ONLY, 1, "CURLOPT_CONNECT_ONLY")
            try easy.set(CURLOPT_CERTINFO, 1, "CURLOPT_CERTINFO")
            try easy.set(CURLOPT_NOSIGNAL, 1, "CURLOPT_NOSIGNAL")
            try easy.set(CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeoutMillis, "CURLOPT_CONNECTTIMEOUT_MS")
            if let total = settings.totalTimeoutMillis { try easy.set(CURLOPT_TIMEOUT_MS, total, "CURLOPT_TIMEOUT_MS") }
            if let ca = settings.caFile { try easy.set(CURLOPT_CAINFO, ca, "CURLOPT_CAINFO") }
            if let proxy = settings.proxy { try easy.set(CURLOPT_PROXY, proxy, "CURLOPT_PROXY") }
            if settings.insecure {
                try easy.set(CURLOPT_SSL_VERIFYPEER, 0, "CURLOPT_SSL_VERIFYPEER")
                try easy.set(CURLOPT_SSL_VERIFYHOST, 0, "CURLOPT_SSL_VERIFYHOST")
            }
        } catch {
            throw .options(error)
        }
        let code = curl_easy_perform(easy.pointer)
        guard code == CURLE_OK else { throw .handshake(CurlError(easy: code, "curl_easy_perform", detail: easy.errorText)) }
        var raw: UnsafeMutableRawPointer?
        guard wl_easy_getinfo_ptr(easy.pointer, CURLINFO_CERTINFO, &raw) == CURLE_OK, let raw else {
            throw .noInformation
        }
        let info = raw.assumingMemoryBound(to: curl_certinfo.self).pointee
        var dates: [String] = []
        for i in 0..<Int(info.num_of_certs) {
            var item = info.certinfo?[i]
            while let node = item {
                if let data = node.pointee.data {
                    let line = String(cString: data)
                    if line.hasPrefix("Expire date:") { dates.append(String(line.dropFirst(12))) }
                }
                item = node.pointee.next
            }
        }
        return dates
    }
}
