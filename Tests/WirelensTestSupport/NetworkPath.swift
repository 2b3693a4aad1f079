import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A network path with a queue between a client and a server namespace (scripts/netpath.sh): a router forwarding
/// between them with an optional tbf rate limit, random drop rule and delay line, for tests that need a real path.
///
/// Needs root: `up` throws with the reason otherwise, so the calling test fails loudly (CI runs as root). Each path
/// has a name unique to the test process; `down()` (also at deinit) ends what runs in it and deletes it.
public final class NetworkPath {
    public let name: String
    public let clientNamespace: String
    public let serverNamespace: String
    public let clientIP: String
    public let serverIP: String
    /// The client's and the server's addresses on the second link (`up(secondPath:)`), nil without one.
    public let secondClientIP: String?
    public let secondServerIP: String?
    private var isDown = false

    /// The packet counters of the router: its uplink's packets and drops, and each direction's qdisc.
    public struct Counters: Sendable, Equatable {
        /// Packets the router forwarded toward the server, counted before the drop rule.
        public var uplinkPackets: Int
        /// Packets the drop rule dropped.
        public var dropPackets: Int
        /// Packets the downlink's drop rule dropped.
        public var downDropPackets: Int
        /// The uplink tbf's sent bytes and packets, and its own drops (a full queue).
        public var upSentBytes: Int
        public var upSentPackets: Int
        public var upDropped: Int
        /// The downlink tbf's sent bytes and packets, and its own drops.
        public var downSentBytes: Int
        public var downSentPackets: Int
        public var downDropped: Int

        /// The share of the uplink's packets the path lost: the drop rule's and the full queue's.
        public var uplinkLoss: Double {
            Double(dropPackets + upDropped) / Double(max(uplinkPackets, 1))
        }
    }

    /// Numbers the paths of this process.
    private static let sequence = Atomic<Int>(0)

    /// Brings a path up: `rate` and `downRate` in tc's units (`8mbit`), `drop` and `downDrop` the probabilities of
    /// a random drop on the uplink and the downlink, `queue` tbf's latency, `delay` the time the router holds each
    /// packet each way (`20ms`: the round trip grows by 40 ms), `secondPath` the rate of a second link straight between
    /// the client (`c1`) and the server (`s1`), beside the router, for Multipath TCP.
    public static func up(rate: String? = nil, downRate: String? = nil, drop: Double? = nil, downDrop: Double? = nil,
                          queue: String? = nil, delay: String? = nil, secondPath: String? = nil) throws -> NetworkPath {
        guard getuid() == 0 else {
            throw TestServerError(message: "this test needs root to make network namespaces, tc and iptables rules "
                                  + "(CI runs it as root): run the tests as root")
        }
        let name = "wl\(getpid())-\(sequence.add(1, ordering: .relaxed).newValue)"
        var arguments = ["up", name]
        if let rate { arguments += ["--rate", rate] }
        if let downRate { arguments += ["--down-rate", downRate] }
        if let drop { arguments += ["--drop", String(drop)] }
        if let downDrop { arguments += ["--down-drop", String(downDrop)] }
        if let queue { arguments += ["--queue", queue] }
        if let delay { arguments += ["--delay", delay] }
        if let secondPath { arguments += ["--second-path", secondPath] }
        let lines = try TestServers.runScript(script, arguments)
        var values: [String: String] = [:]
        for line in lines.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        guard let client = values["CLIENT_NS"], let server = values["SERVER_NS"], let clientIP = values["CLIENT_IP"],
              let serverIP = values["SERVER_IP"] else {
            _ = try? TestServers.runScript(script, ["down", name])
            throw TestServerError(message: "netpath.sh up printed no namespaces: \(lines)")
        }
        return NetworkPath(name: name, client: client, server: server, clientIP: clientIP, serverIP: serverIP,
                           secondClientIP: values["SECOND_CLIENT_IP"], secondServerIP: values["SECOND_SERVER_IP"])
    }

    private init(name: String, client: String, server: String, clientIP: String, serverIP: String,
                 secondClientIP: String?, secondServerIP: String?) {
        self.name = name
        clientNamespace = client
        serverNamespace = server
        self.clientIP = clientIP
        self.serverIP = serverIP
        self.secondClientIP = secondClientIP
        self.secondServerIP = secondServerIP
    }

    deinit { down() }

    /// Ends what still runs in the path's namespaces and deletes them.
    public func down() {
        guard !isDown else { return }
        isDown = true
        _ = try? TestServers.runScript(Self.script, ["down", name])
    }

    /// The router's counters now.
    public func counters() throws -> Counters {
        let text = try TestServers.runScript(Self.script, ["counters", name])
        var values: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
        }
        func value(_ key: String) throws -> Int {
            guard let found = values[key] else { throw TestServerError(message: "netpath.sh counters lacks \(key): \(text)") }
            return found
        }
        return Counters(uplinkPackets: try value("UPLINK_PACKETS"), dropPackets: try value("DROP_PACKETS"),
                        downDropPackets: try value("DOWN_DROP_PACKETS"),
                        upSentBytes: try value("UP_SENT_BYTES"), upSentPackets: try value("UP_SENT_PACKETS"),
                        upDropped: try value("UP_DROPPED"), downSentBytes: try value("DOWN_SENT_BYTES"),
                        downSentPackets: try value("DOWN_SENT_PACKETS"), downDropped: try value("DOWN_DROPPED"))
    }

    /// Runs `executable` inside `namespace` (`ip netns exec`), bounded by `timeout`.
    public func run(in namespace: String, _ executable: String, _ arguments: [String],
                    timeout: TimeInterval = 60) throws -> ProcessRunner.Outcome {
        try ProcessRunner.run(Self.ip, ["netns", "exec", namespace, executable] + arguments, timeout: timeout)
    }

    /// Starts `executable` inside `namespace` as a `ServerProcess` (`ip netns exec` becomes the program itself, so
    /// the child's pid is the program's).
    public func process(in namespace: String, _ executable: String, _ arguments: [String]) throws -> ServerProcess {
        try ServerProcess(Self.ip, ["netns", "exec", namespace, executable] + arguments)
    }

    private static let script = TestServers.repositoryRoot.appendingPathComponent("scripts/netpath.sh").path

    /// iproute2's `ip`, where Debian puts it.
    private static let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/ip"
}
