import WirelensCore

extension TargetURL {
    /// Why `text` cannot be a DNS-over-HTTPS server's URL (`--doh-url`, a check's `doh_url`), or nil: it must be an
    /// https URL with a host, as libcurl's parser reads it. libcurl runs DoH over HTTPS only (its release builds refuse
    /// an http DoH URL), so an http one is refused here, before the run.
    package static func dohProblem(_ text: String) -> String? {
        let shown = RequestTextCheck.oneLine(Redactor.url(text))
        let url: TargetURL
        do {
            url = try TargetURL(text)
        } catch {
            return "'\(shown)' is not an https URL; write e.g. https://127.0.0.1:8443/dns-query"
        }
        guard url.scheme == "https" else {
            return "'\(shown)' is not https: libcurl sends DNS over HTTPS only over https"
        }
        return nil
    }
}
