import Foundation
import WirelensCore

/// Writes libcurl's verbose text to stderr as `curl -v` does, every line redacted first (`VerboseLine`): never an
/// Authorization or Cookie value, a token or a URL's user info. Bodies are not written, as curl's `-v` writes none.
enum VerboseText {
    /// Writes one piece of verbose text of `kind`.
    static func write(_ kind: VerboseLine.Kind, _ bytes: UnsafeBufferPointer<UInt8>) {
        let lines = VerboseLine.lines(kind, String(decoding: bytes, as: UTF8.self))
        guard !lines.isEmpty else { return }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
