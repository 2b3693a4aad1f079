internal import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// A streaming SHA-256 through OpenSSL's libcrypto (already linked by libcurl): feed bytes, then take the hex digest.
///
/// Not thread-safe: one owner feeds it. After `finalize()` the digest is fixed and further updates are ignored.
public final class SHA256Digest {
    private let context: OpaquePointer?
    private var result: String?

    /// A digest of no bytes yet.
    public init() {
        context = EVP_MD_CTX_new()
        if let context { EVP_DigestInit_ex(context, EVP_sha256(), nil) }
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds bytes to the digest.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard result == nil, let context, let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Adds bytes to the digest.
    public func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// The digest as 64 lowercase hex digits; later calls return the same text.
    public func finalize() -> String {
        if let result { return result }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        if let context { EVP_DigestFinal_ex(context, &digest, &length) }
        let text = Self.hex(digest.prefix(Int(length)))
        result = text
        return text
    }

    /// The SHA-256 of `bytes` as hex.
    public static func hex<Bytes: Sequence>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digest = SHA256Digest()
        digest.update(bytes)
        return digest.finalize()
    }

    /// The SHA-256 of `length` bytes of a file from `offset` (to the end when nil), read in chunks with pread.
    public static func hex(ofFile path: String, offset: Int64 = 0, length: Int64? = nil) throws(DigestError) -> String {
        let digest = SHA256Digest()
        try digest.update(file: path, offset: offset, length: length)
        return digest.finalize()
    }

    /// Adds `length` bytes of a file from `offset` (to the end when nil), read in chunks with pread.
    ///
    /// Throws when the file cannot be read or is shorter than `offset + length`.
    public func update(file path: String, offset: Int64 = 0, length: Int64? = nil) throws(DigestError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw DigestError(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var position = offset
        var left = length ?? .max
        while left > 0 {
            let n = pread(fd, buffer.baseAddress, Int(min(Int64(chunk), left)), off_t(position))
            if n < 0 {
                if errno == EINTR { continue }
                throw DigestError(path: path, reason: String(cString: strerror(errno)))
            }
            if n == 0 {
                guard length == nil else { throw DigestError(path: path, reason: "shorter than expected") }
                break
            }
            update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            position += Int64(n)
            left -= Int64(n)
        }
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// The bytes as lowercase hex digits.
    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A file that could not be read for its digest.
public struct DigestError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "cannot read '\(path)': \(reason)" }
}
