internal import CNghttp2

/// Facts about the libnghttp2 this process runs with.
package enum Nghttp2Library {
    /// The running libnghttp2's version, as nghttp2_version reports it at run time (e.g. "1.52.0").
    package static var version: String {
        nghttp2_version(0)?.pointee.version_str.map { String(cString: $0) } ?? "unknown"
    }
}
