import CFileShim
import Foundation

/// Writes a file with O_DIRECT, straight from aligned memory to the device: no page cache, no copy into it.
///
/// For a report that replaces an existing file (`ReportFile.Destination`): a rename over an existing file makes
/// ext4 write the whole new file out there and then (its `auto_da_alloc`, so that a crash leaves the old report or
/// the new one, never an empty file), so such a report is bound for the device before the command ends anyway.
/// Written through the page cache, the JSON report of a gigabyte capture, some 300 MB, took 75 000 fresh pages
/// (0.1 to 0.7 s of system time on a busy machine), a copy into them, and held the rename for 0.13 s while ext4
/// wrote them out; written here, it goes to the device 1 MiB at a time while the analysis goes on, and the rename
/// has nothing left to write. Bytes gather in 1 MiB of memory aligned to 4 KiB and go out in whole 4 KiB blocks;
/// the last piece is written after O_DIRECT is turned off again. A file system that refuses an O_DIRECT write
/// gets the rest written through the page cache as usual.
final class DirectFileWrites {
    private let fd: Int32
    /// The aligned memory the bytes gather in, and how many it holds.
    private let memory: UnsafeMutableRawBufferPointer
    private var staged = 0
    /// Whether the file is still written with O_DIRECT (false once the file system refused it).
    private var direct = true
    /// The alignment O_DIRECT asks of memory, file offsets and lengths (the usual logical block size or a multiple).
    static let block = 4096
    /// The memory gathered before it is written.
    static let step = 1 << 20

    /// Turns O_DIRECT on for `fd`; nil when the file system does not have it.
    init?(fd: Int32) {
        guard wl_set_direct(fd, 1) == 0 else { return nil }
        self.fd = fd
        memory = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.step, alignment: Self.block)
    }

    deinit {
        memory.deallocate()
    }

    /// Takes `bytes`, writing each full step; false (with `errno`) when a write fails.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = min(bytes.count - offset, memory.count - staged)
            (memory.baseAddress! + staged).copyMemory(from: bytes.baseAddress! + offset, byteCount: n)
            staged += n
            offset += n
            if staged == memory.count, !flush(whole: false) { return false }
        }
        return true
    }

    /// Writes what is gathered: the whole blocks, or everything (with O_DIRECT off) when `whole`; false (with
    /// `errno`) when a write fails.
    func flush(whole: Bool) -> Bool {
        if whole { buffered() }
        var count = direct ? staged / Self.block * Self.block : staged
        var done = 0
        while done < count {
            let n = Foundation.write(fd, memory.baseAddress! + done, count - done)
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EINVAL && direct {
                // A file system that opened the file with O_DIRECT but refuses its writes: the page cache after all.
                buffered()
                count = staged
                continue
            }
            if n <= 0 { return false }
            done += n
            if direct, done % Self.block != 0 {
                buffered()  // a short write off a block boundary: the rest through the page cache
                count = staged
            }
        }
        let rest = staged - count
        if rest > 0 { memory.baseAddress!.copyMemory(from: memory.baseAddress! + count, byteCount: rest) }
        staged = rest
        return true
    }

    /// Turns O_DIRECT off for the rest of the file.
    private func buffered() {
        guard direct else { return }
        _ = wl_set_direct(fd, 0)
        direct = false
    }
}
