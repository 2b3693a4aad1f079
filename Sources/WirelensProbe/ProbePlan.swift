#if canImport(Glibc)
import Glibc
#endif
import Foundation
import WirelensCore

/// A checked description of a probe run: which tasks to run, built from what the user asked for.
///
/// Every input is checked here, before any transfer starts, so that bad input gives one clear error.
package struct ProbePlan: Sendable, Equatable {
    package var urls: [String]
    package var method: String
    package var body: BodySource
    package var repeatCount: Int
    package var outputPath: String?
    /// Request headers every task of the plan adds (a form's Content-Type).
    package var headers: [HeaderField] = []
    /// How the body part goes out, as curl's flag for it (`-d` and `-F`: a POST; `-T`: an upload); nil: none.
    package var bodyKind: BodyKind?
    /// True when the method was given (`-X`): it stays on every redirect hop, as curl's.
    package var keepsMethod: Bool

    /// Checks the URLs, the upload source and the output file.
    ///
    /// - Parameters:
    ///   - method: the method asked for; nil means GET, or PUT when there is a body (as `curl -T`).
    ///   - uploadPath: a file to stream as the body; with `uploadSize`, a pipe to read that many bytes from.
    ///   - uploadSize: a generated body of this many bytes, or the length of the pipe's body.
    ///   - form: multipart/form-data fields (the method is then POST unless given).
    ///   - data: curl's `-d` and `--data-binary` arguments (POST unless given): one `--data-binary @FILE` alone is
    ///     streamed from disk, anything else is read and joined with `&`.
    ///   - dataContentType: the Content-Type a data body gets, as curl's `application/x-www-form-urlencoded`; nil when
    ///     the user's own header names one.
    package init(urls: [String], method: String?, uploadPath: String?, uploadSize: Int64?, repeatCount: Int,
                outputPath: String?, form: [FormField] = [], data: [RequestData] = [],
                dataContentType: String? = "application/x-www-form-urlencoded") throws(ProbeError) {
        guard !urls.isEmpty else { throw ProbeError.malformedURL("", reason: "no URL given") }
        for url in urls { _ = try TargetURL(url) }
        if !form.isEmpty {
            var random = SystemRandomNumberGenerator()
            let multipart = MultipartForm(parts: try Self.parts(form), boundary: MultipartForm.randomBoundary(using: &random))
            body = .pieces(multipart.body)
            headers = [HeaderField(name: "Content-Type", value: multipart.contentType)]
            bodyKind = .post
        } else if !data.isEmpty {
            if data.count == 1, case .file(let path, binary: true) = data[0], path != "-" {
                body = .file(path: path, size: try Self.readableFileSize(path))
            } else {
                body = .pieces(BodyPieces([.bytes(try RequestData.body(data, read: Self.contents(of:)))]))
            }
            if let dataContentType { headers = [HeaderField(name: "Content-Type", value: dataContentType)] }
            bodyKind = .post
        } else if let uploadPath, let uploadSize {
            try Self.checkPipe(uploadPath)
            body = .pipe(path: uploadPath, size: uploadSize)
            bodyKind = .upload
        } else if let uploadPath {
            body = .file(path: uploadPath, size: try Self.readableFileSize(uploadPath))
            bodyKind = .upload
        } else if let uploadSize {
            body = .generated(size: uploadSize)
            bodyKind = .upload
        } else {
            body = .none
            bodyKind = nil
        }
        if let outputPath {
            try Self.checkWritable(outputPath)
        }
        self.urls = urls
        self.method = (method ?? (body == .none && data.isEmpty ? "GET" : form.isEmpty && data.isEmpty ? "PUT" : "POST"))
            .uppercased()
        self.repeatCount = repeatCount
        self.outputPath = outputPath
        keepsMethod = method != nil
    }

    /// One round of tasks, one per URL in order; the run repeats it `repeatCount` times (see `Engine.run`).
    package var round: [TaskSpec] {
        urls.map {
            var spec = TaskSpec(url: $0, method: method, body: body, outputPath: outputPath, headers: headers)
            spec.bodyKind = bodyKind
            spec.keepsMethod = keepsMethod
            return spec
        }
    }

    /// The form's parts, with each file found, measured and given its filename and media type.
    package static func parts(_ fields: [FormField]) throws(ProbeError) -> [MultipartForm.Part] {
        var parts: [MultipartForm.Part] = []
        for field in fields {
            switch field.value {
            case .text(let text):
                parts.append(MultipartForm.Part(name: field.name, content: .text(text)))
            case .file(let path, let type, let filename):
                let size = try readableFileSize(path)
                let name = filename ?? String(path.split(separator: "/").last ?? Substring(path))
                parts.append(MultipartForm.Part(name: field.name, content: .file(
                    path: path, size: size, filename: name,
                    contentType: type ?? MultipartForm.contentType(forFilename: name))))
            }
        }
        return parts
    }

    /// The whole contents of a file (`-`: stdin, read to its end), for a `-d @FILE` body.
    static func contents(of path: String) throws(ProbeError) -> [UInt8] {
        if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        _ = try readableFileSize(path)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ProbeError.localFile(path: path, reason: "cannot be read")
        }
        return Array(data)
    }

    /// The size of a regular, readable file.
    package static func readableFileSize(_ path: String) throws(ProbeError) -> Int64 {
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

    /// Checks that `path` is a pipe (a FIFO, or /dev/stdin fed by a pipe) this process may read.
    package static func checkPipe(_ path: String) throws(ProbeError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw ProbeError.localFile(path: path, reason: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFIFO else {
            throw ProbeError.localFile(path: path, reason: "not a pipe: --upload-size goes with --upload only for a "
                                       + "pipe (a FIFO, or /dev/stdin fed by another program); a file's size is its own")
        }
        guard access(path, R_OK) == 0 else {
            throw ProbeError.localFile(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Checks that a file can be written: it is writable if it exists, or its directory is.
    package static func checkWritable(_ path: String) throws(ProbeError) {
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
