internal import CCurl
// With CCurlShim: see Libcurl.swift.
internal import CCurlShim

/// A libcurl header list (`curl_slist`), freed with the object.
///
/// libcurl reads a CURLOPT_HTTPHEADER list while the transfer runs and never copies it: whoever sets one keeps the
/// object until the transfer ended (the run's lists live in `RequestHeaderLists`, a transfer's own in its `CurlEasy`).
package final class CurlHeaderList {
    let list: UnsafeMutablePointer<curl_slist>

    /// A list of the lines, nil when there are none.
    init?(_ lines: [String]) throws(CurlError) {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let longer = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw CurlError("curl_slist_append", message: "out of memory")
            }
            list = longer
        }
        guard let list else { return nil }
        self.list = list
    }

    deinit {
        curl_slist_free_all(list)
    }
}
