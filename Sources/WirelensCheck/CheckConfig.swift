import Foundation
import WirelensCore
import WirelensProbe
import Yams

/// A parsed check configuration: the checks of one YAML file.
///
/// ```yaml
/// checks:
///   - name: upload-cn
///     url: https://uploads.example.com/put
///     method: PUT
///     upload: { size: 1MiB }
///     headers: { x-oss-security-token: "${OSS_TOKEN}" }
///     every: 60s
///     expect:
///       status: [200, 201]
///       ttfb: { max: 800ms }
///       upload_throughput: { min: 1MB/s }
/// ```
///
/// A check without `timeout:` is bounded by `defaults: { timeout: … }` at the top level, else by `defaultTimeout`,
/// and never by more than its `every:` (as Prometheus clamps an unset scrape timeout to the scrape interval);
/// one without `buckets:` has `defaults: { buckets: […] }`, else `Histogram.defaultBounds`. A check's interval
/// may not be shorter than a timeout it gives itself: a run could outlast it (without `every:`, the interval is
/// `CheckDefinition.defaultInterval` or the timeout, whichever is longer).
package struct CheckConfig: Sendable, Equatable {
    package var checks: [CheckDefinition]

    /// The total timeout of a check that gives none (and no `defaults: { timeout: }`): 10 s, the default of a
    /// blackbox_exporter module, so that a stalled server fails the check instead of holding it.
    package static let defaultTimeout: Int64 = 10_000_000

    package init(checks: [CheckDefinition]) {
        self.checks = checks
    }

    /// The keys a check accepts.
    package static let checkKeys = [
        "name", "url", "method", "upload", "headers", "every", "keep_alive", "expect", "http_version", "timeout",
        "connect_timeout", "idle_timeout", "retries", "max_redirects", "trusted_redirects", "allow_link_local_redirects",
        "insecure", "cacert", "proxy", "expect_100", "user_agent", "cookies", "buckets", "doh_url", "doh_insecure",
        "mptcp",
    ]

    /// The keys `expect:` accepts.
    package static let expectKeys = [
        "status", "dns", "connect", "tls", "ttfb", "total", "upload_throughput", "download_throughput", "reuse",
        "retries", "certificate", "body_contains",
    ]

    /// Reads and parses a configuration file; `${NAME}` takes its value from `environment`.
    package static func load(path: String, environment: [String: String]) throws(CheckConfigError) -> CheckConfig {
        func failure(_ reason: String) -> CheckConfigError {
            CheckConfigError(file: path, line: 0, key: "", message: "cannot read the configuration: \(reason)")
        }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw failure(String(cString: strerror(errno))) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw failure("not a regular file") }
        let data: Data
        do {
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw failure(String(cString: strerror(errno)))
        }
        guard let text = String(data: data, encoding: .utf8) else { throw failure("not UTF-8 text") }
        return try parse(text, file: path, environment: environment)
    }

    /// Parses configuration text; `file` names it in errors.
    package static func parse(_ text: String, file: String, environment: [String: String]) throws(CheckConfigError)
        -> CheckConfig {
        let reader = ConfigReader(file: file, environment: environment)
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw Self.yamlError(error, file: file, text: text)
        } catch {
            throw CheckConfigError(file: file, line: 0, key: "", message: "not YAML: \(error)")
        }
        guard let root else { throw CheckConfigError(file: file, line: 1, key: "checks", message: "the file is empty; list checks under 'checks:'") }
        var checksNode: Node?
        var defaults = Defaults()
        for entry in try reader.mapping(root, "") {
            switch entry.name {
            case "checks": checksNode = entry.value
            case "defaults":
                for item in try reader.mapping(entry.value, "defaults") {
                    let k = reader.path("defaults", item.name)
                    switch item.name {
                    case "timeout": defaults.timeout = try reader.duration(item.value, k)
                    case "buckets": defaults.buckets = try reader.buckets(item.value, k)
                    default: throw reader.error(item.keyNode, k, "unknown key; defaults takes timeout and buckets")
                    }
                }
            default:
                throw reader.error(entry.keyNode, entry.name, "unknown key; the top level has 'checks' and 'defaults'")
            }
        }
        guard let checksNode else { throw reader.error(root, "checks", "missing; list the checks under 'checks:'") }
        guard let sequence = checksNode.sequence, !sequence.isEmpty else {
            throw reader.error(checksNode, "checks", "must be a list of checks ('- name: …')")
        }
        var checks: [CheckDefinition] = []
        var names: [String: Int] = [:]
        for (index, node) in sequence.enumerated() {
            let check = try parseCheck(node, key: "checks[\(index)]", defaults: defaults, reader: reader)
            if let line = names[check.name] {
                throw reader.error(node, "checks[\(index)].name", "'\(check.name)' is already the name of the check on line \(line)")
            }
            names[check.name] = check.line
            checks.append(check)
        }
        return CheckConfig(checks: checks)
    }

    /// What `defaults:` gives the checks that do not say.
    struct Defaults {
        /// µs.
        var timeout = CheckConfig.defaultTimeout
        /// Histogram bucket bounds, µs.
        var buckets = Histogram.defaultBounds
    }

    /// One entry of `checks:`; `defaults` fill in the timeout and buckets it does not give.
    static func parseCheck(_ node: Node, key: String, defaults: Defaults,
                           reader: ConfigReader) throws(CheckConfigError) -> CheckDefinition {
        var name: String?
        var url: String?
        var method: String?
        var body = BodySource.none
        var options = ProbeOptions()
        var timeoutNode: Node?
        var buckets = defaults.buckets
        var every: Int64?
        var everyNode: Node?
        var keepAlive = false
        var allowsLinkLocalRedirects = false
        var expectations: [Expectation] = []
        var expectNode: Node?
        for entry in try reader.mapping(node, key) {
            let k = reader.path(key, entry.name)
            let v = entry.value
            switch entry.name {
            case "name":
                let text = try reader.string(v, k)
                guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
                    throw reader.error(v, k, "'\(text)' is not a name; use letters, digits, '-', '_' and '.'")
                }
                name = text
            case "url":
                let text = try reader.string(v, k)
                guard let parsed = URL(string: text), let scheme = parsed.scheme?.lowercased(),
                      scheme == "http" || scheme == "https", parsed.host != nil else {
                    throw reader.error(v, k, "'\(Redactor.url(text))' is not an http:// or https:// URL")
                }
                url = text
            case "method":
                let text = try reader.string(v, k).uppercased()
                guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                    throw reader.error(v, k, "'\(text)' is not an HTTP method")
                }
                method = text
            case "upload": body = try parseUpload(v, key: k, reader: reader)
            case "headers":
                for header in try reader.mapping(v, k) {
                    let hk = reader.path(k, RequestTextCheck.oneLine(header.name))
                    guard !header.name.isEmpty, !header.name.contains(" "), !header.name.contains(":") else {
                        throw reader.error(header.keyNode, hk, "'\(header.name)' is not a header name")
                    }
                    let value = try reader.string(header.value, hk)
                    if let problem = RequestTextCheck.problem(name: header.name, value: value) {
                        throw reader.error(header.value, hk, problem)
                    }
                    options.headers.append(HeaderField(name: header.name, value: value))
                }
            case "every":
                every = try reader.duration(v, k)
                everyNode = v
            case "buckets": buckets = try reader.buckets(v, k)
            case "keep_alive": keepAlive = try reader.bool(v, k)
            case "expect": expectNode = v
            case "http_version":
                let text = try reader.string(v, k)
                switch text.lowercased() {
                case "auto": options.httpVersion = .auto
                case "1.1", "http/1.1", "http1.1": options.httpVersion = .http1_1
                case "2", "h2", "http2", "http/2": options.httpVersion = .http2
                case "h2c", "h2c-prior-knowledge": options.httpVersion = .http2PriorKnowledge
                default: throw reader.error(v, k, "'\(text)' is not one of auto, http/1.1, h2, h2c")
                }
            case "timeout":
                options.totalTimeout = try reader.duration(v, k)
                timeoutNode = v
            case "connect_timeout": options.connectTimeout = try reader.duration(v, k)
            case "idle_timeout": options.idleTimeout = try reader.duration(v, k)
            case "retries": options.retry.maxRetries = try reader.int(v, k, 0...100)
            case "max_redirects": options.maxRedirects = try reader.int(v, k, 0...100)
            case "trusted_redirects": options.trustedRedirects = try reader.bool(v, k)
            case "allow_link_local_redirects": allowsLinkLocalRedirects = try reader.bool(v, k)
            case "insecure": options.insecure = try reader.bool(v, k)
            case "cacert": options.caFile = try reader.string(v, k)
            case "proxy": options.proxy = try reader.string(v, k)
            case "doh_url":
                let doh = try reader.string(v, k)
                if let problem = TargetURL.dohProblem(doh) { throw reader.error(v, k, problem) }
                options.dohURL = doh
            case "doh_insecure": options.dohInsecure = try reader.bool(v, k)
            case "expect_100": options.expectContinue = try reader.bool(v, k)
            case "mptcp": options.multipath = try reader.bool(v, k)
            case "cookies":
                // The cookie engine within each run of the check (its redirects), starting empty every run.
                options.cookies.engine = try reader.bool(v, k)
                options.cookies.clearedPerRun = true
            case "user_agent":
                let agent = try reader.string(v, k)
                if let problem = RequestTextCheck.problem(name: "User-Agent", value: agent) { throw reader.error(v, k, problem) }
                options.userAgent = agent
            default:
                throw reader.error(entry.keyNode, k, "unknown key; a check takes \(checkKeys.joined(separator: ", "))")
            }
        }
        guard let name else { throw reader.error(node, reader.path(key, "name"), "missing; every check needs a name") }
        guard let url else { throw reader.error(node, reader.path(key, "url"), "missing; check '\(name)' needs a url") }
        if let expectNode {
            expectations = try parseExpect(expectNode, key: reader.path(key, "expect"), reader: reader)
        }
        if timeoutNode == nil {
            options.totalTimeout = min(defaults.timeout, every ?? defaults.timeout)
        }
        if let every, let everyNode, let timeout = options.totalTimeout, every < timeout {
            throw reader.error(everyNode, reader.path(key, "every"),
                               "\(DurationText.format(micros: every)) is shorter than the check's timeout "
                                   + "\(DurationText.format(micros: timeout)); a run could outlast its interval: give every ≥ timeout")
        }
        if !expectations.contains(where: { if case .status = $0 { true } else { false } }) {
            expectations.insert(.succeeded, at: 0)
        }
        return CheckDefinition(name: name, url: url, method: method ?? (body == .none ? "GET" : "PUT"), body: body,
                               options: options, every: every, keepAlive: keepAlive, expectations: expectations,
                               line: node.mark?.line ?? 0, allowsLinkLocalRedirects: allowsLinkLocalRedirects,
                               buckets: buckets)
    }

    /// `upload: { size: 1MiB }` or `upload: { file: /path }`.
    static func parseUpload(_ node: Node, key: String, reader: ConfigReader) throws(CheckConfigError) -> BodySource {
        var body: BodySource?
        for entry in try reader.mapping(node, key) {
            let k = reader.path(key, entry.name)
            guard body == nil else { throw reader.error(entry.keyNode, k, "give size or file, not both") }
            switch entry.name {
            case "size": body = .generated(size: try reader.size(entry.value, k))
            case "file":
                let path = try reader.string(entry.value, k)
                var info = stat()
                guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(path, R_OK) == 0 else {
                    throw reader.error(entry.value, k, "'\(path)' is not a readable file")
                }
                body = .file(path: path, size: Int64(info.st_size))
            default: throw reader.error(entry.keyNode, k, "unknown key; upload takes size or file")
            }
        }
        guard let body else { throw reader.error(node, key, "give size (e.g. 1MiB) or file") }
        return body
    }

    /// The assertions under `expect:`.
    static func parseExpect(_ node: Node, key: String, reader: ConfigReader) throws(CheckConfigError) -> [Expectation] {
        var result: [Expectation] = []
        /// The single `bound:` entry of a `{ max: … }` or `{ min: … }` mapping.
        func bound(_ value: Node, _ k: String, _ bound: String) throws(CheckConfigError) -> Node {
            let entries = try reader.mapping(value, k)
            guard let entry = entries.first else { throw reader.error(value, k, "write { \(bound): … }") }
            guard entries.count == 1, entry.name == bound else {
                let other = entries.first { $0.name != bound } ?? entry
                throw reader.error(other.keyNode, reader.path(k, other.name), "unknown key; write { \(bound): … }")
            }
            return entry.value
        }
        for entry in try reader.mapping(node, key) {
            let k = reader.path(key, entry.name)
            let v = entry.value
            switch entry.name {
            case "status":
                var codes: [Int] = []
                for (i, code) in try reader.list(v, k).enumerated() {
                    codes.append(try reader.int(code, v.sequence == nil ? k : "\(k)[\(i)]", 100...599))
                }
                result.append(.status(codes))
            case "dns", "connect", "tls", "ttfb", "total":
                let phase = CheckPhase(rawValue: entry.name) ?? .total
                result.append(.maxPhase(phase, try reader.duration(try bound(v, k, "max"), reader.path(k, "max"))))
            case "upload_throughput":
                result.append(.minUploadThroughput(try reader.rate(try bound(v, k, "min"), reader.path(k, "min"))))
            case "download_throughput":
                result.append(.minDownloadThroughput(try reader.rate(try bound(v, k, "min"), reader.path(k, "min"))))
            case "reuse":
                if try reader.bool(v, k) { result.append(.reuseRequired) }
            case "retries":
                result.append(.maxRetries(try reader.int(try bound(v, k, "max"), reader.path(k, "max"), 0...100)))
            case "certificate":
                let days = try bound(v, k, "min_days")
                result.append(.certificateDays(try reader.int(days, reader.path(k, "min_days"), 0...100_000)))
            case "body_contains":
                let text = try reader.string(v, k)
                guard !text.isEmpty else { throw reader.error(v, k, "give the text the body must contain") }
                result.append(.bodyContains(text))
            default:
                throw reader.error(entry.keyNode, k, "unknown assertion; expect takes \(expectKeys.joined(separator: ", "))")
            }
        }
        return result
    }

    /// A YAML syntax error as a configuration error at its line.
    /// A key given twice is `given twice` at its second occurrence's line and path (`DuplicateKey`), like the
    /// other mistakes; when that cannot be found, at its first occurrence's line with its name.
    static func yamlError(_ error: YamlError, file: String, text: String) -> CheckConfigError {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
             .composer(_, let problem, let mark, _):
            return CheckConfigError(file: file, line: mark.line, key: "", message: "YAML syntax: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let name = duplicates.first ?? ""
            guard let found = DuplicateKey.locate(name: name, mark: context.mark, in: text) else {
                return CheckConfigError(file: file, line: context.mark.line, key: name,
                                        message: "given twice in one mapping; keep one")
            }
            return CheckConfigError(file: file, line: found.line, key: found.path,
                                    message: "given twice (first on line \(found.firstLine)); keep one")
        default:
            let first = "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
            return CheckConfigError(file: file, line: 0, key: "", message: "YAML: \(first)")
        }
    }
}
