import Foundation

/// The kernel's Multipath TCP counters (/proc/net/netstat, its `MPTcpExt` lines) of one network namespace, by name:
/// `MPCapableSYNRX` (SYNs with MP_CAPABLE an MPTCP listener took), `MPCapableFallbackSYNACK` (MPTCP connects whose
/// SYN/ACK had none), and the rest. The oracle of the MPTCP tests: the kernel's own count, not Wirelens's.
public struct MPTCPCounters: Sendable, Equatable {
    public var values: [String: Int]

    /// One counter; an error naming it when the kernel has no such counter.
    public func value(_ name: String) throws -> Int {
        guard let found = values[name] else {
            throw TestServerError(message: "no MPTcpExt counter \(name) in /proc/net/netstat: \(values.keys.sorted())")
        }
        return found
    }

    /// The counters in /proc/net/netstat's text: its `MPTcpExt:` header line of names and the line of values after it.
    public static func parse(_ netstat: String) throws -> MPTCPCounters {
        let lines = netstat.split(separator: "\n").filter { $0.hasPrefix("MPTcpExt:") }
        guard lines.count == 2 else {
            throw TestServerError(message: "/proc/net/netstat has no MPTcpExt counters (a kernel without MPTCP?)")
        }
        let names = lines[0].split(separator: " ").dropFirst(), numbers = lines[1].split(separator: " ").dropFirst()
        var values: [String: Int] = [:]
        for (name, number) in zip(names, numbers) { values[String(name)] = Int(number) }
        return MPTCPCounters(values: values)
    }

    /// The counters of the test process's own namespace.
    public static func read() throws -> MPTCPCounters {
        try parse(try String(contentsOfFile: "/proc/net/netstat", encoding: .utf8))
    }

    /// The counters of `namespace`, one of `path`'s (read there by `cat`: /proc/net is per namespace).
    public static func read(in path: NetworkPath, namespace: String) throws -> MPTCPCounters {
        let outcome = try path.run(in: namespace, "/bin/cat", ["/proc/net/netstat"], timeout: 10)
        guard outcome.status == 0 else {
            throw TestServerError(message: "cat /proc/net/netstat in \(namespace): \(outcome.stderr)")
        }
        return try parse(outcome.stdout)
    }
}
