import WirelensCompare
import WirelensCore
import XCTest
import WirelensTestSupport

/// The compare command's pure parts: workload, limits and modes parsing, the interleaved schedule, aggregation
/// over repetitions, speed-ups and the recommendation, on synthetic runs.
final class CompareTests: XCTestCase {
    // MARK: parsing

    func testWorkloadsParse() throws {
        XCTAssertEqual(try CompareWorkload.parse("requests:50"), .requests(count: 50))
        XCTAssertEqual(try CompareWorkload.parse("upload:256KiBx8"), .upload(size: 256 << 10, count: 8))
        XCTAssertEqual(try CompareWorkload.parse("download:1MBx3"), .download(size: 1_000_000, count: 3))
        XCTAssertEqual(try CompareWorkload.parse("segmented:8MiB"), .segmentedSize(size: 8 << 20))
        XCTAssertEqual(try CompareWorkload.parse("segmented:/tmp/photo.jpg"), .segmentedFile(path: "/tmp/photo.jpg"))
        XCTAssertEqual(try CompareWorkload.parse("upload:256KiBx8").text, "upload:256KiBx8")
        XCTAssertEqual(try CompareWorkload.parse("download:1000x2").text, "download:1KBx2")
        XCTAssertEqual(try CompareWorkload.parse("download:1MBx2").text, "download:1MBx2")
        XCTAssertEqual(try CompareWorkload.parse("upload:1500x2").text, "upload:1500x2")
        XCTAssertFalse(CompareWorkload.requests(count: 1).movesBytes)
        XCTAssertTrue(CompareWorkload.segmentedSize(size: 1).isSegmented)
    }

    func testBadWorkloadsNameTheInput() {
        for text in ["requests", "requests:0", "requests:x", "upload:256KiB", "upload:zzx3", "upload:1KiBx0",
                     "segmented:", "stream:1x1", "download:0x3"] {
            XCTAssertThrowsError(try CompareWorkload.parse(text), text) { error in
                XCTAssertTrue((error as? CompareParseError)?.message.contains("'\(text)'") ?? false, "\(error)")
            }
        }
    }

    func testSegmentSizeGivesEveryLimitRounds() {
        XCTAssertEqual(CompareWorkload.segmentSize(fileBytes: 8 << 20, maxLimit: 8), 512 << 10)
        XCTAssertEqual(CompareWorkload.segmentSize(fileBytes: 1000, maxLimit: 8), 64 << 10)
        XCTAssertEqual(CompareWorkload.segmentSize(fileBytes: 1 << 40, maxLimit: 1), 8 << 20)
    }

    func testLimitsTakeNumbersAndPresets() throws {
        let limits = try CompareLimit.parseList("ios,macos,oss-ios,aws-cli,8")
        XCTAssertEqual(limits.map(\.value), [4, 6, 5, 10, 8])
        XCTAssertEqual(limits.map(\.label), ["ios", "macos", "oss-ios", "aws-cli", "8"])
        XCTAssertEqual(limits[0].display, "ios (4)")
        XCTAssertEqual(limits[4].display, "8")
        XCTAssertEqual(try CompareLimit.parseList("1, 2").map(\.value), [1, 2])
        for bad in ["0", "1,,2", "1,1", "android", ""] {
            XCTAssertThrowsError(try CompareLimit.parseList(bad), bad)
        }
    }

    func testModesParseAndSetOptions() throws {
        XCTAssertEqual(try CompareMode.parseList("h1,h1-fresh,H2"), [.h1, .h1Fresh, .h2])
        XCTAssertThrowsError(try CompareMode.parseList("h3"))
        XCTAssertThrowsError(try CompareMode.parseList("h1,h1"))
        let base = ProbeOptions()
        let fresh = CompareMode.h1Fresh.options(base: base, limit: 4, https: false)
        XCTAssertEqual(fresh.concurrency, 4)
        XCTAssertEqual(fresh.maxHostConnections, 4)
        XCTAssertFalse(fresh.reuseConnections)
        XCTAssertEqual(fresh.httpVersion, .http1_1)
        XCTAssertEqual(CompareMode.h2.options(base: base, limit: 2, https: true).httpVersion, .http2)
        XCTAssertEqual(CompareMode.h2.options(base: base, limit: 2, https: false).httpVersion, .http2PriorKnowledge)
        XCTAssertTrue(CompareMode.h1.options(base: base, limit: 1, https: false).reuseConnections)
        XCTAssertFalse(CompareMode.h1.options(base: base, limit: 1, https: false).multipath)
        XCTAssertEqual(try CompareMode.parseList("h1,MPTCP"), [.h1, .mptcp])
        let multipath = CompareMode.mptcp.options(base: base, limit: 2, https: true)
        XCTAssertTrue(multipath.multipath)
        XCTAssertEqual(multipath.httpVersion, .http1_1)
        XCTAssertTrue(multipath.reuseConnections)
        XCTAssertEqual(multipath.maxHostConnections, 2)
    }

    func testScheduleInterleavesConfigurations() {
        let steps = CompareConfiguration.schedule(count: 3, repetitions: 2)
        XCTAssertEqual(steps.map(\.configuration), [0, 1, 2, 0, 1, 2])
        XCTAssertEqual(steps.map(\.repetition), [0, 0, 0, 1, 1, 1])
        XCTAssertTrue(CompareConfiguration.schedule(count: 3, repetitions: 0).isEmpty)
        let all = CompareConfiguration.all(modes: [.h1, .h2], limits: [CompareLimit(label: "1", value: 1),
                                                                       CompareLimit(label: "ios", value: 4)])
        XCTAssertEqual(all.map(\.name), ["h1 @ 1", "h1 @ ios (4)", "h2 @ 1", "h2 @ ios (4)"])
    }

    // MARK: aggregation

    /// A run of `count` uploads of `bytes` each, `limit` at a time, each taking `perTaskMs`: `limit` connections
    /// opened (fewer if `connections` says so), the others reused.
    private func run(count: Int, bytes: Int64, limit: Int, perTaskMs: Int64, connections: Int? = nil,
                     failed: Int = 0, failure: ErrorClass = .http, start: Int64 = Fixture.epoch) -> Report {
        let opened = connections ?? limit
        var tasks: [TaskRecord] = []
        for i in 0..<count {
            let slot = i % limit
            let round = Int64(i / limit)
            let t0 = start + round * perTaskMs * 1000
            let end = t0 + perTaskMs * 1000
            let tx = Fixture.transaction(method: "PUT", fetchStart: t0, requestStart: t0 + 1_000,
                                         requestEnd: end - 2_000, responseEnd: end, reused: i >= opened,
                                         connectionId: slot % opened, localPort: 40_000 + slot % opened,
                                         requestBodyBytes: bytes)
            tasks.append(Fixture.task(index: i, method: "PUT", error: i < failed ? Fixture.error(failure) : nil,
                                      transactions: [tx]))
        }
        return Report(libcurl: Fixture.libcurl("8.5.0"), command: "compare", startedAt: start,
                      endedAt: tasks.map(\.endedAt).max() ?? start, interrupted: false,
                      configuration: RunConfiguration(urls: ["http://127.0.0.1/upload/x"], method: "PUT",
                                                      body: .generated(size: bytes), repeatCount: 1,
                                                      options: ProbeOptions()),
                      caveats: [], tasks: tasks)
    }

    func testMeasureAggregatesRepetitions() throws {
        let limit = CompareLimit(label: "2", value: 2)
        // 8 × 100 000 bytes, 2 at a time, 100 ms each: 400 ms; then 200 ms per task: 800 ms.
        let fast = run(count: 8, bytes: 100_000, limit: 2, perTaskMs: 100)
        let slow = run(count: 8, bytes: 100_000, limit: 2, perTaskMs: 200, failed: 1)
        let r = CompareResult.measure(mode: .h1, limit: limit, movesBytes: true, runs: [fast, slow, fast])
        XCTAssertEqual(r.repetitions, 3)
        // The slow run's failed task is no throughput: 7 × 100 000 bytes in 800 ms.
        XCTAssertEqual(r.throughputRuns.map { $0.rounded() }, [2_000_000, 875_000, 2_000_000])
        XCTAssertEqual(r.throughput, 2_000_000, accuracy: 1)
        XCTAssertEqual(r.wallMs, 400, accuracy: 0.001)
        XCTAssertEqual(r.throughputUnit, "B/s")
        let latency = try XCTUnwrap(r.latencyMs)
        XCTAssertEqual(latency.count, 24)
        XCTAssertEqual(latency.p50, 100, accuracy: 0.001)
        XCTAssertEqual(latency.max, 200, accuracy: 0.001)
        XCTAssertEqual(r.connectionsOpened, 2)
        XCTAssertEqual(r.connectionsOpenedRuns, [2, 2, 2])
        XCTAssertEqual(r.reuseRatio, 0.75, accuracy: 1e-9)
        XCTAssertEqual(r.errors, 1)
        XCTAssertEqual(r.tasks, 24)
        XCTAssertEqual(try XCTUnwrap(r.phaseMediansMs["connect"]), 1, accuracy: 0.001)
        XCTAssertEqual(try XCTUnwrap(r.phaseMediansMs["wait"]), 2, accuracy: 0.001)
        XCTAssertNil(r.phaseMediansMs["tls"])
        let requests = CompareResult.measure(mode: .h1, limit: limit, movesBytes: false, runs: [fast])
        XCTAssertEqual(requests.throughput, 20, accuracy: 0.001)
        XCTAssertEqual(requests.throughputUnit, "req/s")
    }

    func testSpeedupPairsRepetitionsWithTheSmallestLimit() {
        let one = CompareLimit(label: "1", value: 1)
        let four = CompareLimit(label: "ios", value: 4)
        let base = CompareResult.measure(mode: .h1, limit: one, movesBytes: true, runs: [
            run(count: 8, bytes: 100_000, limit: 1, perTaskMs: 100),
            run(count: 8, bytes: 100_000, limit: 1, perTaskMs: 200)])
        let wide = CompareResult.measure(mode: .h1, limit: four, movesBytes: true, runs: [
            run(count: 8, bytes: 100_000, limit: 4, perTaskMs: 100),
            run(count: 8, bytes: 100_000, limit: 4, perTaskMs: 100)])
        let other = CompareResult.measure(mode: .h2, limit: four, movesBytes: true, runs: [
            run(count: 8, bytes: 100_000, limit: 4, perTaskMs: 400)])
        let results = CompareResult.withSpeedups([wide, base, other])
        let speedup = results[0].speedup
        XCTAssertEqual(speedup?.baseline, "1")
        XCTAssertEqual(speedup?.min ?? 0, 4, accuracy: 1e-6)
        XCTAssertEqual(speedup?.max ?? 0, 8, accuracy: 1e-6)
        XCTAssertEqual(results[1].speedup?.median ?? 0, 1, accuracy: 1e-9)
        // Alone in its mode, h2 is its own baseline.
        XCTAssertEqual(results[2].speedup?.baseline, "ios")
        XCTAssertEqual(results[2].speedup?.median ?? 0, 1, accuracy: 1e-9)
    }

    /// One result per (limit, throughput), with p90 latency growing with the limit.
    private func results(_ points: [(Int, Double)]) -> [CompareResult] {
        points.map { limit, throughput in
            var r = CompareResult.measure(mode: .h1, limit: CompareLimit(label: String(limit), value: limit),
                                          movesBytes: true,
                                          runs: [run(count: 4, bytes: 1000, limit: 1, perTaskMs: Int64(10 * limit))])
            r.throughput = throughput
            r.throughputRuns = [throughput]
            return r
        }
    }

    func testRecommendsSmallestLimitNearTheBestWhenBandwidthBound() throws {
        let rec = try XCTUnwrap(CompareRecommendation.make(results([(1, 700), (2, 1390), (4, 2750), (6, 2800), (8, 2790)])))
        XCTAssertEqual(rec.limit?.value, 4)
        XCTAssertEqual(rec.bestLimit?.value, 6)
        XCTAssertEqual(rec.regime, "bandwidth-bound")
        XCTAssertTrue(rec.reason.contains("parallelism helps"), rec.reason)
        XCTAssertTrue(rec.reason.contains("3.93x"), rec.reason)
        let still = try XCTUnwrap(CompareRecommendation.make(results([(1, 700), (2, 1400), (4, 2800)])))
        XCTAssertEqual(still.limit?.value, 4)
        XCTAssertTrue(still.reason.contains("try higher limits"), still.reason)
    }

    func testServerBoundKeepsOneConnection() throws {
        // No kernel verdict in these runs: the time in wait (not in send) makes it the server's.
        var rs = results([(1, 1000), (2, 1020), (4, 990), (8, 800)])
        rs[0].phaseMediansMs["send"] = 2
        rs[0].phaseMediansMs["wait"] = 7
        let rec = try XCTUnwrap(CompareRecommendation.make(rs))
        XCTAssertEqual(rec.limit?.value, 1)
        XCTAssertEqual(rec.regime, "server-bound")
        XCTAssertTrue(rec.reason.contains("more connections only add queueing"), rec.reason)
        XCTAssertTrue(rec.reason.contains("p90 latency"), rec.reason)
        XCTAssertTrue(rec.reason.contains("8 connections lose throughput"), rec.reason)
    }

    func testSaturatingGainIsLessThanLinear() throws {
        let rec = try XCTUnwrap(CompareRecommendation.make(results([(1, 1000), (2, 1500), (4, 1600), (8, 1610)])))
        XCTAssertEqual(rec.limit?.value, 4)
        XCTAssertEqual(rec.regime, "saturating")
        XCTAssertTrue(rec.reason.contains("beyond 4, more only add queueing"), rec.reason)
        XCTAssertNil(CompareRecommendation.make([]))
    }

    func testDocumentAggregatesItsRuns() {
        let one = CompareLimit(label: "1", value: 1)
        let two = CompareLimit(label: "2", value: 2)
        var runs: [CompareDocument.Run] = []
        for r in 0..<2 {
            runs.append(.init(mode: .h1, limit: "1", repetition: r, report: run(count: 4, bytes: 1000, limit: 1, perTaskMs: 10)))
            runs.append(.init(mode: .h1, limit: "2", repetition: r, report: run(count: 4, bytes: 1000, limit: 2, perTaskMs: 10)))
        }
        let doc = CompareDocument(url: "http://user:secret@127.0.0.1/x", workload: .upload(size: 1000, count: 4),
                                  modes: [.h1], limits: [one, two], repetitions: 2, startedAt: Fixture.epoch,
                                  endedAt: Fixture.epoch + 1, interrupted: false, runs: runs)
        XCTAssertEqual(doc.schema, "wirelens.compare/1")
        XCTAssertFalse(doc.url.contains("secret"))
        XCTAssertEqual(doc.results.map(\.limit.label), ["1", "2"])
        XCTAssertEqual(doc.results[1].speedup?.median ?? 0, 2, accuracy: 1e-6)
        XCTAssertEqual(doc.recommendations.first?.limit?.value, 2)
        XCTAssertEqual(doc.reports(mode: .h1, limit: "2").count, 2)
    }

    /// The document as the JSON `--format json` writes, as dictionaries (what a reader of the file sees).
    private func json(_ doc: CompareDocument) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(doc)) as? [String: Any])
    }

    /// Issue 15 item 6: failed tasks are no throughput. h1 at 1 fails every task, at 4 half of them (each failed
    /// task still sent its 100 000 bytes), at 2 none; h2 fails everywhere. Throughput counts the successful
    /// tasks' bytes only, the failed configurations carry their failure, and the recommendation picks only the
    /// clean one (h2 gets no limit and says what failed).
    func testFailedTasksAreNoThroughputAndNeverRecommended() throws {
        let limits = [1, 2, 4].map { CompareLimit(label: String($0), value: $0) }
        var runs: [CompareDocument.Run] = []
        for r in 0..<2 {
            for (limit, failed) in [(1, 8), (2, 0), (4, 4)] {
                runs.append(.init(mode: .h1, limit: String(limit), repetition: r,
                                  report: run(count: 8, bytes: 100_000, limit: limit, perTaskMs: 100, failed: failed,
                                              failure: .connect)))
            }
            for limit in [1, 2, 4] {
                runs.append(.init(mode: .h2, limit: String(limit), repetition: r,
                                  report: run(count: 8, bytes: 100_000, limit: limit, perTaskMs: 100, failed: 8,
                                              failure: .connect)))
            }
        }
        let doc = CompareDocument(url: "http://127.0.0.1/x", workload: .upload(size: 100_000, count: 8),
                                  modes: [.h1, .h2], limits: limits, repetitions: 2, startedAt: Fixture.epoch,
                                  endedAt: Fixture.epoch + 1, interrupted: false, runs: runs)
        // Wall times: 800 ms at 1, 400 ms at 2, 200 ms at 4; successful bytes: 0, 800 000, 400 000.
        XCTAssertEqual(doc.results[0].throughputRuns, [0, 0])
        XCTAssertEqual(doc.results[1].throughputRuns.map { $0.rounded() }, [2_000_000, 2_000_000])
        XCTAssertEqual(doc.results[2].throughputRuns.map { $0.rounded() }, [2_000_000, 2_000_000])
        XCTAssertEqual(doc.results[3...].map(\.throughput), [0, 0, 0])
        // The speed-up of h1 at 4 is against the smallest clean limit, 2.
        XCTAssertEqual(doc.results[2].speedup?.baseline, "2")
        XCTAssertEqual(doc.results[2].speedup?.median ?? 0, 1, accuracy: 1e-9)

        let object = try json(doc)
        let results = try XCTUnwrap(object["results"] as? [[String: Any]])
        let failures = results.map { $0["failure"] as? [String: Any] }
        XCTAssertEqual(failures.map { $0?["failedTasks"] as? Int }, [16, nil, 8, 16, 16, 16])
        XCTAssertEqual(failures.map { $0?["tasks"] as? Int }, [16, nil, 16, 16, 16, 16])
        XCTAssertEqual((failures[0]?["error"] as? [String: Any])?["class"] as? String, "connect")
        XCTAssertEqual((failures[0]?["error"] as? [String: Any])?["message"] as? String, "connect failure")
        XCTAssertFalse(results[1].keys.contains("failure"), "a clean configuration has no failure field")

        let recs = try XCTUnwrap(object["recommendations"] as? [[String: Any]])
        XCTAssertEqual(recs.count, 2)
        XCTAssertEqual((recs[0]["limit"] as? [String: Any])?["value"] as? Int, 2)
        XCTAssertEqual((recs[0]["bestLimit"] as? [String: Any])?["value"] as? Int, 2)
        let h1Reason = try XCTUnwrap(recs[0]["reason"] as? String)
        XCTAssertTrue(h1Reason.contains("left out for failed tasks: 1 (16/16 tasks failed: connect: connect failure), "
                                        + "4 (8/16 tasks failed: connect: connect failure)"), h1Reason)
        XCTAssertNil(recs[1]["limit"], "every h2 configuration failed: no limit")
        XCTAssertNil(recs[1]["bestLimit"])
        XCTAssertEqual(recs[1]["regime"] as? String, "failed")
        XCTAssertEqual(recs[1]["reason"] as? String, "no limit recommended: every configuration failed, the first at "
                       + "1 stream: 16/16 tasks failed: connect: connect failure")
    }

    /// A segmented upload whose failed attempt was retried into a complete upload is no failed configuration;
    /// one that did not complete is, with its own failure when no attempt failed.
    func testSegmentedUploadFailsOnlyWhenItDidNotComplete() throws {
        let limit = CompareLimit(label: "2", value: 2)
        var retried = run(count: 4, bytes: 1000, limit: 2, perTaskMs: 10, failed: 1, failure: .network)
        retried.upload = UploadSection(file: "f", fileBytes: 3000, url: "http://127.0.0.1/u", segmentMode: "fixed",
                                       parallel: 2, maxRetries: 1)
        let complete = CompareResult.measure(mode: .h1, limit: limit, movesBytes: true, runs: [retried])
        XCTAssertNil(complete.failure)
        XCTAssertEqual(complete.errors, 1)
        var broken = retried
        broken.upload?.failure = "segment 1 failed 2 times"
        XCTAssertEqual(CompareResult.measure(mode: .h1, limit: limit, movesBytes: true, runs: [broken]).failure?.description,
                       "1/4 tasks failed: network: network failure")
        var unfinished = run(count: 4, bytes: 1000, limit: 2, perTaskMs: 10)
        unfinished.upload = broken.upload
        XCTAssertEqual(CompareResult.measure(mode: .h1, limit: limit, movesBytes: true, runs: [unfinished]).failure?
            .description, "0/4 tasks failed: other: segment 1 failed 2 times")
    }

    func testLeadingVerdictSumsTimeOverRuns() throws {
        // Two runs: server-window holds 900 + 300 ms, network 100 + 700 ms: server-window leads with 1200 of 2000 ms.
        let a = ["server-window": VerdictStats(transactions: 3, timeMs: 900, example: ""),
                 "network": VerdictStats(transactions: 1, timeMs: 100, example: "")]
        let b = ["server-window": VerdictStats(transactions: 1, timeMs: 300, example: ""),
                 "network": VerdictStats(transactions: 2, timeMs: 700, example: "")]
        let lead = try XCTUnwrap(VerdictShare.leading([a, nil, b]))
        XCTAssertEqual(lead.verdict, .serverWindow)
        XCTAssertEqual(lead.share, 0.6, accuracy: 1e-9)
        XCTAssertEqual(lead.transactions, 4)
        XCTAssertNil(VerdictShare.leading([nil, [:]]))
    }

    func testRecommendationSaysWhatTheVerdictsSaid() throws {
        var rs = results([(1, 700), (2, 1390), (4, 2750), (8, 2790)])
        rs[0].leadingVerdict = VerdictShare(verdict: .serverWindow, share: 0.92, transactions: 8)
        rs[2].leadingVerdict = VerdictShare(verdict: .network, share: 0.81, transactions: 8)
        let rec = try XCTUnwrap(CompareRecommendation.make(rs))
        XCTAssertEqual(rec.limit?.value, 4)
        XCTAssertEqual(rec.regime, "bandwidth-bound")
        XCTAssertTrue(rec.reason.contains("at 1 each connection was held back by the server's receive window "
                                          + "(server-window, 92% of the transaction time)"), rec.reason)
        XCTAssertTrue(rec.reason.contains("at 4 the path was busy (network, 81% of the transaction time): 4 is enough"),
                      rec.reason)
        XCTAssertFalse(try XCTUnwrap(CompareRecommendation.make(results([(1, 700), (4, 2750)]))).reason.contains("transaction time"))
        rs[2].leadingVerdict = VerdictShare(verdict: .serverWindow, share: 0.88, transactions: 8)
        let same = try XCTUnwrap(CompareRecommendation.make(rs)).reason
        XCTAssertTrue(same.contains("at 1 and 4 each connection was held back by the server's receive window "
                                     + "(server-window, 92% and 88% of the transaction time)"), same)
    }

    /// Issue 27 item 3: where the measuring host led, the recommendation says the result is bounded by this machine.
    func testTheHostsLimitIsNamedWhereItLed() throws {
        var rs = results([(1, 1000), (2, 1020), (4, 990), (8, 1000)])
        rs[0].leadingVerdict = VerdictShare(verdict: .clientCPU, share: 0.9, transactions: 4)
        rs[1].leadingVerdict = VerdictShare(verdict: .network, share: 0.6, transactions: 4)
        rs[2].leadingVerdict = VerdictShare(verdict: .clientCPU, share: 0.7, transactions: 4)
        rs[3].leadingVerdict = VerdictShare(verdict: .clientCPU, share: 0.8, transactions: 4)
        let rec = try XCTUnwrap(CompareRecommendation.make(rs))
        XCTAssertEqual(rec.regime, "host-bound")
        XCTAssertTrue(rec.reason.hasPrefix("host-bound: 1 connection already moves"), rec.reason)
        XCTAssertTrue(rec.reason.contains("this machine was the limit at 1, 4 and 8 (client-cpu): the result is bounded "
                                          + "by this machine, and whether more connections help cannot be judged from here"),
                      rec.reason)
        rs[0].leadingVerdict = VerdictShare(verdict: .network, share: 0.9, transactions: 4)
        rs[2].leadingVerdict = nil
        let one = try XCTUnwrap(CompareRecommendation.make(rs)).reason
        XCTAssertTrue(one.contains("this machine was the limit at 8 (client-cpu)"), one)
        rs[3].leadingVerdict = nil
        XCTAssertFalse(try XCTUnwrap(CompareRecommendation.make(rs)).reason.contains("this machine"))
    }

    /// Issue 27's demo case: a loopback comparison on a small machine, no transfer's loop thread CPU-bound (its
    /// verdicts `unknown` or `server-think`), the machine's CPUs saturated by both ends: the recommendation names this
    /// machine at the limits where it was at least 90% busy with the server on it, and not where the server was
    /// elsewhere or the machine had room.
    func testASaturatedMachineWithTheServerOnItIsNamed() throws {
        var rs = results([(1, 1000), (2, 1300), (4, 1340), (8, 1300)])
        for i in rs.indices { rs[i].leadingVerdict = VerdictShare(verdict: .unknown, share: 0.6, transactions: 4) }
        let busy = [0.8, 0.97, 0.99, 0.93]
        for i in rs.indices {
            rs[i].machineBusyShare = busy[i]
            rs[i].clientCPUShare = 0.4
            rs[i].peerOnThisMachine = true
        }
        let rec = try XCTUnwrap(CompareRecommendation.make(rs))
        XCTAssertTrue(rec.reason.contains("this machine was the limit at 2, 4 and 8 (its CPUs 93-99% busy, the server on "
                                          + "it too): the result is bounded by this machine"), rec.reason)
        rs[0].leadingVerdict = VerdictShare(verdict: .clientCPU, share: 0.9, transactions: 4)
        let mixed = try XCTUnwrap(CompareRecommendation.make(rs)).reason
        XCTAssertTrue(mixed.contains("at 1, 2, 4 and 8 (client-cpu, or its CPUs 93-99% busy"), mixed)
        // A client that mostly waited (5% of a CPU) on a machine another job kept busy: not the machine's doing.
        rs[0].leadingVerdict = nil
        for i in rs.indices { rs[i].clientCPUShare = 0.05 }
        XCTAssertFalse(try XCTUnwrap(CompareRecommendation.make(rs)).reason.contains("this machine"))
        for i in rs.indices { rs[i].clientCPUShare = 0.4 }
        // The server elsewhere: the machine's other work is not the comparison's.
        for i in rs.indices { rs[i].peerOnThisMachine = false }
        rs[0].leadingVerdict = nil
        XCTAssertFalse(try XCTUnwrap(CompareRecommendation.make(rs)).reason.contains("this machine"))
        // Saturated at the smallest limit with the server on it: more connections were never going to tell.
        var flat = results([(1, 1000), (2, 1010), (4, 990)])
        for i in flat.indices {
            flat[i].machineBusyShare = 0.95
            flat[i].clientCPUShare = 0.5
            flat[i].peerOnThisMachine = true
        }
        XCTAssertEqual(try XCTUnwrap(CompareRecommendation.make(flat)).regime, "host-bound")
    }

    /// A document without the members (written before them) reads as not measured, no peer known.
    func testAResultWithoutTheMachinesShareDecodes() throws {
        var r = results([(1, 1000)])[0]
        r.peerOnThisMachine = false
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(r)) as? [String: Any])
        XCTAssertTrue(object["machineBusyShare"] is NSNull)
        XCTAssertEqual(object["peerOnThisMachine"] as? Bool, false)
        object["machineBusyShare"] = nil
        object["peerOnThisMachine"] = nil
        let old = try JSONDecoder().decode(CompareResult.self, from: JSONSerialization.data(withJSONObject: object))
        XCTAssertNil(old.machineBusyShare)
        XCTAssertFalse(old.peerOnThisMachine)
        XCTAssertEqual(old, r)
    }

    /// Issue 27 item 4: where HTTP/2 moves less because the server's flow-control window held each stream, the h2
    /// mode's recommendation says so.
    func testTheH2ModeSaysTheFlowControlWindowHeldIt() throws {
        var rs = results([(1, 1_190_000), (4, 1_200_000)])
        for i in rs.indices {
            rs[i].mode = .h2
            rs[i].leadingVerdict = VerdictShare(verdict: .h2Window, share: 0.95, transactions: 4)
        }
        let rec = try XCTUnwrap(CompareRecommendation.make(rs))
        XCTAssertTrue(rec.reason.contains("at 1 each stream was held back by the server's HTTP/2 flow-control window "
                                          + "(h2-window, 95% of the transaction time)"), rec.reason)
    }

    func testFlatThroughputWithANetworkVerdictIsNotServerBound() throws {
        var rs = results([(1, 1000), (2, 1020), (4, 990)])
        rs[0].leadingVerdict = VerdictShare(verdict: .network, share: 0.9, transactions: 4)
        let rec = try XCTUnwrap(CompareRecommendation.make(rs))
        XCTAssertEqual(rec.limit?.value, 1)
        XCTAssertEqual(rec.regime, "network-bound")
        XCTAssertTrue(rec.reason.hasPrefix("network-bound: 1 connection already moves"), rec.reason)
        XCTAssertTrue(rec.reason.contains("at 1 the path was busy (network, 90%"), rec.reason)
        rs[0].leadingVerdict = VerdictShare(verdict: .serverThink, share: 0.9, transactions: 4)
        XCTAssertEqual(CompareRecommendation.make(rs)?.regime, "server-bound")
    }

    /// Issue 15 item 7: without a kernel verdict (`--tcp-sample off`, a download's `unknown`), a flat mode's regime
    /// follows the phases: time in send is the path, time in wait the server.
    func testFlatThroughputWithoutAKernelVerdictFollowsThePhases() throws {
        var rs = results([(1, 1000), (2, 1020), (4, 990)])
        for verdict in [nil, VerdictShare(verdict: .unknown, share: 1, transactions: 4)] {
            rs[0].leadingVerdict = verdict
            rs[0].phaseMediansMs = ["connect": 0.2, "send": 1300, "wait": 0]
            let sending = try XCTUnwrap(CompareRecommendation.make(rs))
            XCTAssertEqual(sending.regime, "network-bound", "\(String(describing: verdict))")
            XCTAssertTrue(sending.reason.hasPrefix("network-bound: 1 connection already moves"), sending.reason)
            XCTAssertTrue(sending.reason.contains("no kernel verdict, so the phases tell it: at 1 the median send took "
                                                  + "1300.0 ms and wait 0.0 ms"), sending.reason)
            rs[0].phaseMediansMs = ["connect": 0.2, "send": 3, "wait": 300]
            let waiting = try XCTUnwrap(CompareRecommendation.make(rs))
            XCTAssertEqual(waiting.regime, "server-bound")
            XCTAssertTrue(waiting.reason.hasPrefix("server- or CPU-bound: "), waiting.reason)
            XCTAssertFalse(waiting.reason.contains("phases tell"), waiting.reason)
        }
        // A kernel verdict still decides over the phases.
        rs[0].leadingVerdict = VerdictShare(verdict: .serverWindow, share: 0.9, transactions: 4)
        rs[0].phaseMediansMs = ["send": 1300, "wait": 0]
        let kernel = try XCTUnwrap(CompareRecommendation.make(rs))
        XCTAssertEqual(kernel.regime, "server-bound")
        XCTAssertFalse(kernel.reason.contains("phases tell"), kernel.reason)
    }

    func testUploadSectionSaysWhyFromItsAttempts() throws {
        func tx(_ verdict: Verdict, _ ms: Int64) -> TransactionMetrics {
            var t = Fixture.transaction(method: "PUT", fetchStart: Fixture.epoch, requestStart: Fixture.epoch + 1_000,
                                        requestEnd: Fixture.epoch + ms * 1000 - 1_000, responseEnd: Fixture.epoch + ms * 1000, reused: false,
                                        requestBodyBytes: 1000)
            t.diagnosis = Diagnosis(verdict: verdict, evidence: Diagnosis.Evidence(direction: "upload"))
            return t
        }
        // Two attempts held by the window (300 + 300 ms), one by the path (200 ms); the complete call (task 3,
        // server-think, 5 s) is not an attempt and is left out.
        let tasks = [(0, tx(.serverWindow, 300)), (1, tx(.serverWindow, 300)), (2, tx(.network, 200)),
                     (3, tx(.serverThink, 5000))].map { Fixture.task(index: $0.0, method: "PUT", transactions: [$0.1]) }
        var section = UploadSection(file: "f", fileBytes: 3000, url: "http://127.0.0.1/u", segmentMode: "fixed",
                                    parallel: 2, maxRetries: 1)
        section.attempts = (0..<3).map { .init(task: $0, segment: $0, offset: Int64($0) * 1000, length: 1000, attempt: 1,
                                               succeeded: true) }
        section.explain(tasks: tasks)
        let lead = try XCTUnwrap(section.verdict)
        XCTAssertEqual(lead.verdict, .serverWindow)
        XCTAssertEqual(lead.share, 0.75, accuracy: 1e-9)
        XCTAssertEqual(section.why, "each connection was held back by the server's receive window "
                       + "(server-window, 75% of the transaction time): more segments in flight help")
        XCTAssertEqual(UploadSection.why(VerdictShare(verdict: .network, share: 0.9, transactions: 3)),
                       "the path was busy (network, 90% of the transaction time): more segments in flight will not help")
    }
}
