/// The deterministic bytes of a generated request body.
enum BodyPattern {
    /// 64 KiB of a repeating, printable pattern; a body's byte at offset o is `block[o % block.count]`.
    static let block: [CChar] = (0..<65_536).map { CChar(truncatingIfNeeded: 33 + ($0 * 7 + $0 / 251) % 94) }

    /// Copies `count` bytes of the pattern, starting at body offset `offset`, into `buffer`.
    static func fill(_ buffer: UnsafeMutablePointer<CChar>, count: Int, offset: Int64) {
        block.withUnsafeBufferPointer { source in
            var done = 0
            var position = Int(offset % Int64(source.count))
            while done < count {
                let n = min(count - done, source.count - position)
                (buffer + done).update(from: source.baseAddress! + position, count: n)
                done += n
                position = 0
            }
        }
    }
}
