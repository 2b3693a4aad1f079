internal import CMalloc

/// How glibc's allocator should treat the blocks a streaming pipeline frees and asks for again, set once per process.
///
/// The capture reader fills a megabyte batch of packets, the analysing thread frees it, and the reader asks for the
/// next one: about a thousand times a gigabyte. With glibc's defaults a freed batch at the top of a heap is soon
/// given back to the kernel (the trim threshold follows the largest block freed: 2 MiB here), and the next batch's
/// pages come back zeroed by the kernel, one page fault each: 16k-52k faults, and a tenth of the whole run's CPU
/// time, on the benchmark's 1 GB capture. Keeping up to `trimThreshold` bytes free at the top of each heap lets
/// the next batch reuse the last one's pages (8k faults, whatever the file's size). Peak memory does not change:
/// what is kept was in use a moment before.
enum AllocatorPolicy {
    /// Blocks of at least this many bytes get a mapping of their own (glibc's default starts at 128 KiB and moves
    /// with the blocks freed; fixing the trim threshold fixes this one too, so it is set with it).
    static let mmapThreshold: Int32 = 4 << 20
    /// Free bytes at the top of a heap kept before glibc gives them back to the kernel.
    static let trimThreshold: Int32 = 8 << 20

    /// Sets both thresholds for this process.
    static func keepBatchMemory() {
        _ = mallopt(M_MMAP_THRESHOLD, mmapThreshold)
        _ = mallopt(M_TRIM_THRESHOLD, trimThreshold)
    }
}
