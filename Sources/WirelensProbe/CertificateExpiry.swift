import CCurl
import CCurlShim
import Foundation
import WirelensCore

/// Reads when a TLS server's certificates expire, through one libcurl connection with CURLOPT_CERTINFO.
///
/// A separate connect-only handshake (no request), so that the probe's own transfers keep their timings.
public enum CertificateExpiry {
    /// The earliest `notAfter` of the server's chain in µs since the epoch (as blackbox_exporter's
    /// probe_ssl_earliest_cert_expiry), or a one-line reason why it is unknown.
    ///
    /// Bounded by the options' total timeout; a cancelled task gets its answer ("cancelled") at once, the handshake
    /// ending on its own thread.
    public static func earliest(url: String, options: ProbeOptions) async -> Result<Int64, ProbeError> {
        let outcome = OnceContinuation<Result<Int64, ProbeError>>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                outcome.attach(continuation)
                DispatchQueue.global().async {
                    outcome.resume(Result { () throws(ProbeError) in try fetch(url: url, options: options) })
                }
            }
        } onCancel: {
            outcome.resume(.failure(.engine("cancelled")))
        }
    }

    /// The blocking handshake.
    static func fetch(url: String, options: ProbeOptions) throws(ProbeError) -> Int64 {
        try Libcurl.initialize()
        guard url.lowercased().hasPrefix("https://") else {
            throw ProbeError.engine("no certificate: \(Redactor.url(url)) is not https://")
        }
        guard let easy = curl_easy_init() else { throw ProbeError.engine("curl_easy_init returned NULL") }
        defer { curl_easy_cleanup(easy) }
        var ok = wl_easy_setopt_str(easy, CURLOPT_URL, url) == CURLE_OK
        ok = ok && wl_easy_setopt_long(easy, CURLOPT_CONNECT_ONLY, 1) == CURLE_OK
        ok = ok && wl_easy_setopt_long(easy, CURLOPT_CERTINFO, 1) == CURLE_OK
        ok = ok && wl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1) == CURLE_OK
        ok = ok && wl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int((options.connectTimeout ?? 30_000_000) / 1000)) == CURLE_OK
        if let total = options.totalTimeout {
            ok = ok && wl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(max(1, total / 1000))) == CURLE_OK
        }
        if let ca = options.caFile { ok = ok && wl_easy_setopt_str(easy, CURLOPT_CAINFO, ca) == CURLE_OK }
        if let proxy = options.proxy { ok = ok && wl_easy_setopt_str(easy, CURLOPT_PROXY, proxy) == CURLE_OK }
        if options.insecure {
            ok = ok && wl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 0) == CURLE_OK
            ok = ok && wl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 0) == CURLE_OK
        }
        guard ok else { throw ProbeError.engine("libcurl refused the certificate-info options") }
        let code = curl_easy_perform(easy)
        guard code == CURLE_OK else {
            throw ProbeError.engine("TLS handshake for the certificate failed: \(String(cString: curl_easy_strerror(code)))")
        }
        var raw: UnsafeMutableRawPointer?
        guard wl_easy_getinfo_ptr(easy, CURLINFO_CERTINFO, &raw) == CURLE_OK, let raw else {
            throw ProbeError.engine("libcurl gave no certificate information")
        }
        let info = raw.assumingMemoryBound(to: curl_certinfo.self).pointee
        var dates: [Int64] = []
        for i in 0..<Int(info.num_of_certs) {
            var item = info.certinfo?[i]
            while let node = item {
                if let data = node.pointee.data {
                    let line = String(cString: data)
                    if line.hasPrefix("Expire date:"), let date = parseDate(String(line.dropFirst(12))) {
                        dates.append(date)
                    }
                }
                item = node.pointee.next
            }
        }
        guard let earliest = dates.min() else { throw ProbeError.engine("the server's certificates carry no expiry date") }
        return earliest
    }

    /// Parses OpenSSL's `Nov 22 10:00:00 2027 GMT` (or `2027-11-22 10:00:00 GMT`) to µs since the epoch.
    static func parseDate(_ text: String) -> Int64? {
        let trimmed = text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for format in ["MMM d HH:mm:ss yyyy zzz", "yyyy-MM-dd HH:mm:ss zzz"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return Int64(date.timeIntervalSince1970) * 1_000_000 }
        }
        return nil
    }
}
