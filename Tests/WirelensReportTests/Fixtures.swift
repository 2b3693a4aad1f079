import WirelensCompare
import WirelensCore
import WirelensCurl
import WirelensProbe
import WirelensTestSupport

/// Hand-built transactions, tasks and reports for the report tests.
enum Fixtures {
    /// 2025-07-31T22:13:20.123456Z in µs since the epoch.
    static let epoch: Int64 = 1_754_000_000_123_456

    static let libcurl = LibcurlDescription(version: "7.88.1", sslBackend: "OpenSSL/3.0.11", http2: true, http3: false,
                                            asyncDNS: true, ipv6: true, nghttp2: "1.52.0")

    /// A transaction whose timeline is laid out from the given phase durations (µs), back to back from `start`.
    ///
    /// A nil phase did not happen and gets no timestamps; `total` defaults to the sum of the phases.
    static func transaction(kind: TransactionKind = .initial, url: String = "https://localhost:8443/upload",
                            method: String = "GET", start: Int64, queue: Int64? = 15, dns: Int64? = nil,
                            connect: Int64? = nil, tls: Int64? = nil, send: Int64? = nil, wait: Int64? = nil,
                            receive: Int64? = nil, total: Int64? = nil, reused: Bool = false,
                            connectionId: Int? = 0, localPort: Int? = 54321, status: Int? = 200,
                            error: TransferError? = nil) -> TransactionMetrics {
        var timeline = Timeline(fetchStart: start)
        var t = start + (queue ?? 0)
        let curlStart = t
        var curl = CurlTimers()
        if let dns {
            timeline.domainLookupStart = t
            t += dns
            timeline.domainLookupEnd = t
            curl.nameLookup = t - curlStart
        }
        if let connect {
            timeline.connectStart = t
            t += connect
            timeline.connectEnd = t
            curl.connect = t - curlStart
        }
        if let tls {
            timeline.secureConnectionStart = t
            t += tls
            timeline.secureConnectionEnd = t
            curl.appConnect = t - curlStart
        }
        if let send {
            curl.preTransfer = t - curlStart
            timeline.requestStart = t
            t += send
            timeline.requestEnd = t
        }
        if let wait {
            t += wait
            timeline.responseStart = t
            curl.startTransfer = t - curlStart
        }
        if let receive {
            t += receive
            timeline.responseEnd = t
        }
        let phases = Phases(queue: queue, dns: dns, connect: connect, tls: tls, send: send, wait: wait,
                            receive: receive, total: total ?? (t - start))
        curl.total = phases.total - (queue ?? 0)
        var tx = TransactionMetrics(kind: kind, url: url, method: method, timeline: timeline, phases: phases,
                                    reusedConnection: reused, proxyConnection: false, curlTimers: curl)
        tx.connectionId = connectionId
        if let localPort {
            tx.localAddress = "127.0.0.1"
            tx.localPort = localPort
            tx.remoteAddress = "127.0.0.1"
            tx.remotePort = 8443
        }
        tx.statusCode = status
        tx.networkProtocolName = status == nil ? nil : "http/1.1"
        tx.error = error
        tx.requestHeaderBytes = send == nil ? 0 : 180
        tx.responseHeaderBytes = status == nil ? 0 : 120
        return tx
    }

    /// The configuration of the fixture runs: a POST of a file with timeouts, a proxy and a secret header.
    static func configuration(urls: [String]) -> RunConfiguration {
        var options = ProbeOptions()
        options.concurrency = 4
        options.maxHostConnections = 6
        options.connectTimeout = 5_000_000
        options.idleTimeout = 15_000_000
        options.retry = RetryPolicy(maxRetries: 3)
        options.proxy = "http://user:secret@proxy.local:3128"
        options.headers = [HeaderField(name: "Authorization", value: "Bearer abc"), HeaderField(name: "X-Trace", value: "1")]
        options.includeResponseHeaders = true
        return RunConfiguration(urls: urls, method: "POST", body: .file(path: "/tmp/body.bin", size: 3_000_000),
                                repeatCount: 1, options: options)
    }

    /// One task that went through a redirect (on a reused connection, which timed out) and a retry.
    ///
    /// 1. initial POST, new connection #0 with DNS, TCP and TLS, answered 307;
    /// 2. redirect POST on the reused connection #0 (no DNS, connect or TLS), failed waiting for the server;
    /// 3. retry POST on a new connection #1 after a 250 ms backoff, with `Expect: 100-continue`, answered 200 with
    ///    headers.
    static func redirectTask() -> TaskRecord {
        redirectTask(multipath: nil)
    }

    /// The Multipath TCP facts of a download over two subflows, two thirds of it on the first; and of one that fell
    /// back to TCP. The first subflow's verdict is `network`, the second's `server-send`.
    static let multipath = MPTCPFacts.withVerdicts([.network, .serverSend], subflows: [
        MPTCPSubflow(addresses: SubflowAddresses(localAddress: "198.18.1.1", localPort: 40001,
                                                 remoteAddress: "198.18.2.1", remotePort: 8080),
                     info: Fixture.tcpInfo(sent: 310, rtt: 12_100), bodyShare: 0.6667),
        MPTCPSubflow(addresses: SubflowAddresses(localAddress: "2001:db8::1", localPort: 40002,
                                                 remoteAddress: "2001:db8::2", remotePort: 8080),
                     info: Fixture.tcpInfo(sent: 0, rtt: 20_500), bodyShare: 0.3333),
    ])

    static let multipathFellBack = MPTCPFacts(negotiated: false, subflows: [])

    /// `redirectTask()` with `multipath` as its first transaction's MPTCP facts and `multipathFellBack` as its last's.
    static func redirectTask(multipath: MPTCPFacts?) -> TaskRecord {
        let start = epoch
        var first = transaction(url: "https://localhost:8443/upload?token=abc", method: "POST", start: start,
                                queue: 40, dns: 1_200, connect: 310, tls: 4_500, send: 2_000_000, wait: 12_345,
                                receive: 850, status: 307)
        first.requestBodyBytes = 3_000_000
        first.responseBodyBytes = 0
        first.tlsVersion = "TLSv1.3"
        first.tlsCipher = "TLS_AES_256_GCM_SHA384"
        first.alpn = "http/1.1"
        first.domainResolutionProtocol = .https
        first.dohDuration = 1_100

        let secondStart = start + first.phases.total + 100
        var second = transaction(kind: .redirect, url: "https://localhost:8443/store", method: "POST",
                                 start: secondStart, queue: 12, send: 1_900_000, wait: nil, receive: nil,
                                 total: 1_900_012 + 15_000_000, reused: true, status: nil,
                                 error: TransferError(errorClass: .idleTimeout, curlCode: 28,
                                                      message: "Operation too slow. Less than 1 bytes/sec transferred the last 15 seconds"))
        second.requestBodyBytes = 3_000_000
        second.tlsVersion = "TLSv1.3"

        let thirdStart = secondStart + second.phases.total + 250_000
        var third = transaction(kind: .retry, url: "https://localhost:8443/store", method: "POST",
                                start: thirdStart, queue: 9, dns: 800, connect: 290, tls: 4_100, send: 2_100_000,
                                wait: 30_000, receive: 1_500, connectionId: 1, localPort: 54322, status: 200)
        third.requestBodyBytes = 3_000_000
        third.responseBodyBytes = 1_536
        third.expectContinueWait = 1_000_000
        third.retryWait = 250_000
        third.tlsVersion = "TLSv1.3"
        third.responseHeaders = [HeaderField(name: "Content-Type", value: "application/json"),
                                 HeaderField(name: "Set-Cookie", value: Redactor.mask)]
        if let multipath {
            first.mptcp = multipath
            third.mptcp = multipathFellBack
        }
        return TaskRecord(index: 0, url: first.url, method: "POST", startedAt: start,
                          endedAt: thirdStart + third.phases.total, redirectCount: 1, retries: 1, statusCode: 200,
                          error: nil, transactions: [first, second, third])
    }

    /// One task whose only transaction failed while resolving the name: DNS began and never ended.
    static func dnsFailureTask() -> TaskRecord {
        var tx = transaction(url: "https://nowhere.invalid/", start: epoch, queue: 20, total: 20 + 3_000,
                             connectionId: nil, localPort: nil, status: nil,
                             error: TransferError(errorClass: .dns, curlCode: 6,
                                                  message: "Could not resolve host: nowhere.invalid"))
        tx.timeline.domainLookupStart = epoch + 20
        return TaskRecord(index: 0, url: tx.url, method: "GET", startedAt: epoch, endedAt: epoch + 3_020,
                          redirectCount: 0, retries: 0, statusCode: nil, error: tx.error, transactions: [tx])
    }

    /// Ten GET tasks on one connection: task i waits (i + 1) ms for the server, so the p50 of `wait` is 5.5 ms.
    ///
    /// The first opens connection #0 (DNS and TCP, no TLS); the others reuse it. Task 3 ends with a 503
    /// (class `http`), task 7 with an idle timeout in the middle of the body; no transaction has a TLS phase.
    static func manyTasks() -> [TaskRecord] {
        var tasks: [TaskRecord] = []
        var t = epoch
        for i in 0..<10 {
            let isFirst = i == 0
            let status = i == 3 ? 503 : 200
            let error: TransferError? = switch i {
            case 3: TransferError(errorClass: .http, message: "HTTP 503")
            case 7: TransferError(errorClass: .idleTimeout, curlCode: 28, message: "Operation too slow")
            default: nil
            }
            var tx = transaction(url: "http://localhost:8080/item/\(i)", start: t, queue: 5,
                                 dns: isFirst ? 900 : nil, connect: isFirst ? 200 : nil, send: 50,
                                 wait: Int64(i + 1) * 1000, receive: 400, reused: !isFirst,
                                 status: status, error: i == 7 ? error : nil)
            tx.responseBodyBytes = i == 7 ? 1024 : 4096
            tasks.append(TaskRecord(index: i, url: tx.url, method: "GET", startedAt: t, endedAt: t + tx.phases.total,
                                    redirectCount: 0, retries: 0, statusCode: status, error: error, transactions: [tx]))
            t += tx.phases.total + 100
        }
        return tasks
    }

    /// A report over `tasks`, with the caveats that libcurl 7.88 implies.
    /// A report of `tasks`, at `full` detail unless asked (a `standard` document reads back without the debug members).
    static func report(tasks: [TaskRecord], interrupted: Bool = false, detail: ReportDetail = .full) -> Report {
        let options = configuration(urls: []).options
        var report = Report(libcurl: libcurl, command: "wirelens probe --data @/tmp/body.bin https://localhost:8443/upload",
                            startedAt: tasks.map(\.startedAt).min() ?? epoch,
                            endedAt: (tasks.map(\.endedAt).max() ?? epoch) + 500, interrupted: interrupted,
                            configuration: configuration(urls: Array(Set(tasks.map(\.url))).sorted()),
                            caveats: libcurl.caveats(options: options, hasUploads: true), tasks: tasks)
        report.detail = detail
        return report
    }

    /// A segmented upload's section with every optional key set: 3 segments of 1 MiB, segment 1 retried once.
    static func uploadSection() -> UploadSection {
        var u = UploadSection(file: "/tmp/body.bin", fileBytes: 3 << 20, url: "http://127.0.0.1:8080/upload/a",
                              segmentMode: "auto", parallel: 2, maxRetries: 3)
        u.fileSHA256 = String(repeating: "ab", count: 32)
        u.preset = "oss-ios"
        u.segmentSizes = [.init(fromSegment: 0, bytes: 1 << 20, atMs: 0.5)]
        u.segmentsTotal = 3
        u.segmentsSent = 3
        u.segmentsRetried = 1
        u.failedAttempts = 1
        u.bytesSentTwice = 1 << 20
        u.timeLostToRetriesMs = 120.5
        u.wallMs = 900
        u.effectiveBytesPerSecond = 3_495_253
        u.serverBytes = 3 << 20
        u.serverSHA256 = u.fileSHA256
        u.verified = true
        u.attempts = [.init(task: 0, segment: 0, offset: 0, length: 1 << 20, attempt: 1, succeeded: true),
                      .init(task: 1, segment: 1, offset: 1 << 20, length: 1 << 20, attempt: 1, succeeded: false),
                      .init(task: 2, segment: 2, offset: 2 << 20, length: 1 << 20, attempt: 1, succeeded: true),
                      .init(task: 3, segment: 1, offset: 1 << 20, length: 1 << 20, attempt: 2, succeeded: true)]
        return u
    }

    /// A report of `wirelens upload` over `tasks`, with the upload section.
    static func uploadReport(tasks: [TaskRecord]) -> Report {
        var report = report(tasks: tasks)
        report.command = "upload"
        report.upload = uploadSection()
        return report
    }

    /// A comparison over two limits and two modes, the second limit (ios, 4) four times as fast; with `failing`,
    /// h1 at ios keeps `manyTasks`' two failures (an HTTP 503 and an idle timeout).
    static func compareDocument(failing: Bool = false) -> CompareDocument {
        var runs: [CompareDocument.Run] = []
        for r in 0..<2 {
            for mode in [CompareMode.h1, .h2] {
                for (label, speed) in [("1", 1), ("ios", 4)] {
                    var tasks = Fixtures.manyTasks()
                    for i in tasks.indices {
                        // Every task succeeds: a configuration with failed tasks is marked and never recommended.
                        if !(failing && mode == .h1 && label == "ios") { tasks[i].error = nil }
                        tasks[i].transactions[0].requestBodyBytes = Int64(1000 * speed)
                        tasks[i].transactions[0].responseBodyBytes = 0
                    }
                    runs.append(.init(mode: mode, limit: label, repetition: r, report: Fixtures.report(tasks: tasks)))
                }
            }
        }
        return CompareDocument(url: "http://127.0.0.1:1/upload/x", workload: .upload(size: 1000, count: 10),
                               modes: [.h1, .h2], limits: [CompareLimit(label: "1", value: 1), CompareLimit(label: "ios", value: 4)],
                               repetitions: 2, startedAt: Fixtures.epoch, endedAt: Fixtures.epoch + 1, interrupted: false,
                               runs: runs)
    }
}

extension MPTCPFacts {
    /// Negotiated facts of `subflows`, each given its verdict in order.
    fileprivate static func withVerdicts(_ verdicts: [Verdict], subflows: [MPTCPSubflow]) -> MPTCPFacts {
        var facts = MPTCPFacts(negotiated: true, subflows: subflows)
        for (i, verdict) in zip(facts.subflows.indices, verdicts) { facts.subflows[i].verdict = verdict }
        return facts
    }
}
