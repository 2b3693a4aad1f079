import ArgumentParser
import Foundation
import WirelensCore
import WirelensTarget

/// `wirelens target`: runs the built-in HTTP/1.1 target server until SIGINT or SIGTERM.
struct TargetCommand: CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "target",
        abstract: "Run the built-in HTTP/1.1 target server (downloads, uploads, segments, shaping, faults).",
        discussion: """
            Endpoints: GET /bytes/{n} (Range), /delay/{ms}, /status/{code}, /redirect/{n}; PUT|POST /upload/{id} \
            (multipart/form-data parsed); PUT /upload/{id}/part/{index} with Content-Range, POST /upload/{id}/complete, \
            GET /upload/{id}. Faults per request by query: reset_after=N, stall=S, status=CODE, retry_after=S. \
            Prints 'listening on http://HOST:PORT' once bound; stops on SIGINT/SIGTERM with exit code 0.
            """)

    @Option(help: "Address to listen on, HOST:PORT ([::1]:PORT for IPv6; port 0 picks a free port).")
    var listen = "127.0.0.1:8080"

    @Option(name: .customLong("data-dir"), help: "Directory for segment uploads (default: a temporary directory removed at exit).")
    var dataDirectory: String?

    @Option(help: "Latency added before each response, e.g. 50ms.")
    var latency: FlagValue<PositiveDuration>?

    @Option(help: "Bandwidth cap per connection on request and response bodies, e.g. 720KB/s (KB = 1000, KiB = 1024).")
    var rate: FlagValue<ByteRate>?

    @Option(help: "Kernel receive buffer of each connection (SO_RCVBUF), e.g. 64KiB: a small one makes the server's window the bottleneck (default: the kernel's, or about 20 ms of --rate).")
    var rcvbuf: FlagValue<SocketBufferSize>?

    @Option(name: .customLong("max-requests"), help: "Requests per connection, then Connection: close.")
    var maxRequests: Int?

    @Flag(name: .customLong("no-keep-alive"), help: "Close the connection after every response.")
    var noKeepAlive = false

    @Option(name: .customLong("reset-after"), help: "Fault: reset every connection after this many body bytes (see docs/target.md).")
    var resetAfter: FlagValue<ByteCount>?

    @Option(help: "Fault: wait this long before every answer, e.g. 2s.")
    var stall: FlagValue<PositiveDuration>?

    @Option(name: .customLong("fault-status"), help: "Fault: answer every request with this status (200-599).")
    var faultStatus: Int?

    @Option(name: .customLong("retry-after"), help: "Retry-After seconds sent with --fault-status.")
    var retryAfter: Int?

    @Option(name: .customLong("fail-parts"), help: "Fault: fail this fraction (0-1) of part uploads with 503, seeded.")
    var failParts: Double?

    @Option(name: .customLong("fail-seed"), help: "Seed of --fail-parts; the same seed repeats the same failures.")
    var failSeed: UInt64 = 0

    @Option(help: "Event-loop threads.")
    var threads = 2

    @Flag(name: .customLong("mptcp"),
          help: "Listen with Multipath TCP (IPPROTO_MPTCP); plain TCP, said on stderr, where the kernel refuses it.")
    var mptcp = false

    /// Checks the flags into a server configuration.
    func config() throws(UsageError) -> TargetConfig {
        var config = TargetConfig()
        guard let address = ListenAddress.parse(listen) else {
            throw UsageError("--listen '\(listen)' is not HOST:PORT; write e.g. 127.0.0.1:8080 or 127.0.0.1:0")
        }
        config.host = address.host
        config.port = address.port
        config.dataDirectory = dataDirectory
        if let latency { config.latencyMicros = try latency.value("--latency").micros }
        if let rate { config.rateBytesPerSecond = try rate.value("--rate").bytesPerSecond }
        config.receiveBuffer = try TransferFlags.socketBuffer(rcvbuf, "--rcvbuf")
        if let maxRequests {
            guard maxRequests >= 1 else { throw UsageError("--max-requests must be 1 or more, not \(maxRequests)") }
            config.maxRequestsPerConnection = maxRequests
        }
        config.keepAlive = !noKeepAlive
        if let resetAfter { config.faults.resetAfter = try resetAfter.value("--reset-after").bytes }
        if let stall { config.faults.stallMicros = try stall.value("--stall").micros }
        if let faultStatus {
            guard (200...599).contains(faultStatus) else {
                throw UsageError("--fault-status must be a final status from 200 to 599, not \(faultStatus)")
            }
            config.faults.status = faultStatus
        }
        if let retryAfter {
            guard retryAfter >= 0 else { throw UsageError("--retry-after must be 0 or more seconds, not \(retryAfter)") }
            config.faults.retryAfter = retryAfter
        }
        if let failParts {
            guard (0...1).contains(failParts) else {
                throw UsageError("--fail-parts must be a fraction from 0 to 1, not \(failParts)")
            }
            config.partFailures = PartFailurePolicy(fraction: failParts, seed: failSeed)
        }
        guard (1...64).contains(threads) else { throw UsageError("--threads must be 1 to 64, not \(threads)") }
        config.threads = threads
        config.multipath = mptcp
        return config
    }

    func checkFlags() throws(UsageError) {
        _ = try config()
    }

    /// Starts the server, prints its address, waits for SIGINT/SIGTERM, stops it.
    func run() async throws {
        let server = try await TargetServer.start(try config())
        // Unbuffered, so that a script reading the pipe sees the line at once.
        FileHandle.standardOutput.write(Data("listening on \(server.baseURL)\n".utf8))
        if let refusal = server.multipathRefusal {
            let line = "wirelens target: the kernel refuses Multipath TCP sockets (\(refusal)): listening with plain TCP\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
        await SignalTrap.wait()
        do {
            try await server.stop()
        } catch {
            throw CommandFailure(.internalError, "stopping the target: \(error)")
        }
    }
}
