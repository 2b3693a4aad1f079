internal import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// One streaming message digest through OpenSSL's EVP interface, for the named digests (`SHA256Digest`,
/// `MD5Digest`) to share: feed bytes or a file's range, then take the raw digest once.
///
/// Not thread-safe: one owner feeds it. After `finalize()` the digest is fixed and further updates are ignored.
final class EVPDigest {
    private let context: OpaquePointer?
    private var result: [UInt8]?

    /// A digest of no bytes yet with `algorithm` (`EVP_sha256()`, `EVP_md5()`).
    init(_ algorithm: OpaquePointer?) {
        context = EVP_MD_CTX_new()
        if let context { EVP_DigestInit_ex(context, algorithm, nil) }
    }

    deinit { EVP_MD_CTX_free(context) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard result == nil, let context, let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// The raw digest; later calls return the same bytes.
    func finalize() -> [UInt8] {
        if let result { return result }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        if let context { EVP_DigestFinal_ex(context, &digest, &length) }
        let bytes = Array(digest.prefix(Int(length)))
        result = bytes
        return bytes
    }

    /// Adds `length` bytes of a file from `offset` (to the end when nil), read in chunks with pread.
    ///
    /// Throws when the file cannot be read or is shorter than `offset + length`.
    func update(file path: String, offset: Int64 = 0, length: Int64? = nil) throws(DigestError) {
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
