#if canImport(Glibc)
import Glibc
#endif
import WirelensCore

/// A checked description of a probe run: which tasks to run, built from what the user asked for.
///
/// Every input is checked here, before any transfer starts, so that bad input gives one clear error.
public struct ProbePlan: Sendable, Equatable {
    public var urls: [String]
    public var method: String
    public var body: BodySource
    public var repeatCount: Int
    public var outputPath: String?

    /// Checks the URLs, the upload source and the output file.
    ///
    /// - Parameters:
    ///   - method: the method asked for; nil means GET, or PUT when there is a body (as `curl -T`).
    ///   - uploadPath: a file to stream as the body.
    ///   - uploadSize: a generated body of this many bytes.
    public init(urls: [String], method: String?, uploadPath: String?, uploadSize: Int64?, repeatCount: Int,
                outputPath: String?) throws(ProbeError) {
        guard !urls.isEmpty else { throw ProbeError.malformedURL("", reason: "no URL given") }
        for url in urls { _ = try TargetURL(url) }
        if let uploadPath {
            body = .file(path: uploadPath, size: try Self.readableFileSize(uploadPath))
        } else if let uploadSize {
            body = .generated(size: uploadSize)
        } else {
            body = .none
        }
        if let outputPath {
            try Self.checkWritable(outputPath)
        }
        self.urls = urls
        self.method = (method ?? (body == .none ? "GET" : "PUT")).uppercased()
        self.repeatCount = repeatCount
        self.outputPath = outputPath
    }

    /// One round of tasks, one per URL in order; the run repeats it `repeatCount` times (see `Engine.run`).
    public var round: [TaskSpec] {
        urls.map { TaskSpec(url: $0, method: method, body: body, outputPath: outputPath) }
    }

    /// The size of a regular, readable file.
    public static func readableFileSize(_ path: String) throws(ProbeError) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw ProbeError.localFile(path: path, reason: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw ProbeError.localFile(path: path, reason: "not a regular file")
        }
        guard access(path, R_OK) == 0 else {
            throw ProbeError.localFile(path: path, reason: String(cString: strerror(errno)))
        }
        return Int64(info.st_size)
    }

    /// Checks that a file can be written: it is writable if it exists, or its directory is.
    public static func checkWritable(_ path: String) throws(ProbeError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) != S_IFDIR else {
                throw ProbeError.localFile(path: path, reason: "is a directory")
            }
            guard access(path, W_OK) == 0 else {
                throw ProbeError.localFile(path: path, reason: String(cString: strerror(errno)))
            }
            return
        }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        guard access(directory, W_OK) == 0 else {
            throw ProbeError.localFile(path: path, reason: "directory '\(directory)': \(String(cString: strerror(errno)))")
        }
    }
}
