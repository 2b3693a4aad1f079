import Foundation
import WirelensCore
import WirelensCurl

/// Reads when a TLS server's certificates expire, through one libcurl connection with CURLOPT_CERTINFO.
///
/// A separate connect-only handshake (no request), so that the probe's own transfers keep their timings.
package enum CertificateExpiry {
    /// The earliest `notAfter` of the server's chain in µs since the epoch (as blackbox_exporter's
    /// probe_ssl_earliest_cert_expiry), or a one-line reason why it is unknown.
    ///
    /// Bounded by the options' total timeout; a cancelled task gets its answer ("cancelled") at once, the handshake
    /// ending on its own thread.
    package static func earliest(url: String, options: ProbeOptions) async -> Result<Int64, ProbeError> {
        let outcome = OnceContinuation<Result<Int64, ProbeError>>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                outcome.attach(continuation)
                DispatchQueue.global().async {
                    outcome.resume(Result { () throws(ProbeError) in try fetch(url: url, options: options) })
                }
            }
        } onCancel: {
            outcome.resume(.failure(.cancelled))
        }
    }

    /// The blocking handshake.
    static func fetch(url: String, options: ProbeOptions) throws(ProbeError) -> Int64 {
        guard url.lowercased().hasPrefix("https://") else {
            throw ProbeError.certificate(.notHTTPS(url: url))
        }
        let settings = CertificateInfo.Settings(
            connectTimeoutMillis: Int((options.connectTimeout ?? 30_000_000) / 1000),
            totalTimeoutMillis: options.totalTimeout.map { Int(max(1, $0 / 1000)) }, caFile: options.caFile,
            proxy: options.proxy, insecure: options.insecure)
        let lines: [String]
        do {
            lines = try CertificateInfo.expireDates(url: url, settings: settings)
        } catch {
            switch error {
            case .initialization(let failure): throw ProbeError.curl(failure)
            case .options(let failure): throw ProbeError.certificate(.options(failure))
            case .handshake(let failure): throw ProbeError.certificate(.handshake(failure))
            case .noInformation: throw ProbeError.certificate(.noInformation)
            }
        }
        guard let earliest = lines.compactMap(parseDate).min() else {
            throw ProbeError.certificate(.noExpiryDate)
        }
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
