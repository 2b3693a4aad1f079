import WirelensCore

/// The work `wirelens compare` repeats for every configuration: `requests:N`, `download:SIZExN`,
/// `upload:SIZExN`, `segmented:FILE` or `segmented:SIZE`.
public enum CompareWorkload: Sendable, Equatable {
    /// N GETs of the URL.
    case requests(count: Int)
    /// N GETs of the URL, each expected to answer `size` bytes; `{size}` in the URL is replaced by the size.
    case download(size: Int64, count: Int)
    /// N PUTs of a generated body of `size` bytes to the URL.
    case upload(size: Int64, count: Int)
    /// One segmented upload of a file (the URL is the upload's base, segment protocol).
    case segmentedFile(path: String)
    /// One segmented upload of a generated file of `size` bytes.
    case segmentedSize(size: Int64)

    /// The default: 20 requests.
    public static let defaultWorkload = CompareWorkload.requests(count: 20)

    /// Parses the `--workload` text. `segmented:X` is a size when X parses as one (`8MiB`), a file otherwise.
    public static func parse(_ text: String) throws(CompareParseError) -> CompareWorkload {
        let hint = "write requests:N, download:SIZExN, upload:SIZExN, segmented:FILE or segmented:SIZE"
        guard let colon = text.firstIndex(of: ":") else {
            throw CompareParseError("--workload '\(text)' has no kind; \(hint)")
        }
        let kind = text[..<colon].lowercased()
        let argument = String(text[text.index(after: colon)...])
        switch kind {
        case "requests":
            guard let count = Int(argument), count >= 1 else {
                throw CompareParseError("--workload '\(text)': the request count must be a whole number of 1 or more")
            }
            return .requests(count: count)
        case "download", "upload":
            let (size, count) = try sizeTimesCount(argument, in: text)
            return kind == "download" ? .download(size: size, count: count) : .upload(size: size, count: count)
        case "segmented":
            guard !argument.isEmpty else { throw CompareParseError("--workload '\(text)' names no file or size; \(hint)") }
            if let size = ByteSize.parse(argument) {
                guard size >= 1 else { throw CompareParseError("--workload '\(text)': the size must be at least 1 byte") }
                return .segmentedSize(size: size)
            }
            return .segmentedFile(path: argument)
        default:
            throw CompareParseError("--workload '\(text)': unknown kind '\(kind)'; \(hint)")
        }
    }

    /// Parses `SIZExN` (`256KiBx8`): the last `x` splits the size from the count.
    private static func sizeTimesCount(_ argument: String, in text: String) throws(CompareParseError) -> (Int64, Int) {
        guard let x = argument.lastIndex(where: { $0 == "x" || $0 == "X" }),
              let size = ByteSize.parse(String(argument[..<x])), size >= 1,
              let count = Int(argument[argument.index(after: x)...]), count >= 1 else {
            throw CompareParseError("--workload '\(text)' is not SIZExN; write e.g. upload:256KiBx8 (8 bodies of 256 KiB)")
        }
        return (size, count)
    }

    /// The workload as written on the command line (sizes in their exact byte counts when not whole KiB/MiB).
    public var text: String {
        switch self {
        case .requests(let count): "requests:\(count)"
        case .download(let size, let count): "download:\(Self.sizeText(size))x\(count)"
        case .upload(let size, let count): "upload:\(Self.sizeText(size))x\(count)"
        case .segmentedFile(let path): "segmented:\(path)"
        case .segmentedSize(let size): "segmented:\(Self.sizeText(size))"
        }
    }

    /// True when throughput is counted in bytes per second; false for `requests`, counted in requests per second.
    public var movesBytes: Bool {
        if case .requests = self { return false }
        return true
    }

    /// True for the segmented kinds, run as one segmented upload per configuration.
    public var isSegmented: Bool {
        switch self {
        case .segmentedFile, .segmentedSize: true
        default: false
        }
    }

    /// The segment size of a segmented upload of `fileBytes` compared over limits up to `maxLimit`: about two
    /// segments per connection at the largest limit, so that every limit has rounds to overlap, within 64 KiB...8 MiB.
    public static func segmentSize(fileBytes: Int64, maxLimit: Int) -> Int64 {
        let unit: Int64 = 64 << 10
        let wanted = (fileBytes + Int64(2 * max(1, maxLimit)) - 1) / Int64(2 * max(1, maxLimit))
        let rounded = (wanted + unit - 1) / unit * unit
        return min(max(rounded, unit), 8 << 20)
    }

    /// `size` in the largest binary or decimal unit that divides it (`256KiB`, `1MB`), else the byte count.
    static func sizeText(_ size: Int64) -> String {
        let units: [(Int64, String)] = [(1 << 30, "GiB"), (1_000_000_000, "GB"), (1 << 20, "MiB"), (1_000_000, "MB"),
                                        (1 << 10, "KiB"), (1000, "KB")]
        for (unit, name) in units where size >= unit && size % unit == 0 { return "\(size / unit)\(name)" }
        return "\(size)"
    }
}
