import Foundation

/// One row of the kernel's network counters of one network namespace, by name: a `/proc/net/snmp` or
/// `/proc/net/netstat` header line of names (`Tcp:`, `TcpExt:`, `MPTcpExt:`) and the line of values after it. The
/// oracle of tests that count what the kernel did (`RetransSegs`, `TCPSACKReorder`, `MPCapableSYNRX`,
/// `MPCapableFallbackSYNACK`): the kernel's own count, not Wirelens's.
public struct KernelCounters: Sendable, Equatable {
    /// The row's prefix, as the file names it (`MPTcpExt:`).
    public var row: String
    public var values: [String: Int]

    /// One counter; an error naming it when the row has no such counter.
    public func value(_ name: String) throws -> Int {
        guard let found = values[name] else {
            throw TestServerError(message: "no \(row) counter \(name): \(values.keys.sorted())")
        }
        return found
    }

    /// The counters of the `row` lines in a counters file's text.
    public static func parse(_ text: String, row: String) throws -> KernelCounters {
        let lines = text.split(separator: "\n").filter { $0.hasPrefix(row) }
        guard lines.count == 2 else {
            throw TestServerError(message: "no \(row) counters (a kernel without them?): \(text.prefix(200))")
        }
        let names = lines[0].split(separator: " ").dropFirst(), numbers = lines[1].split(separator: " ").dropFirst()
        var values: [String: Int] = [:]
        for (name, number) in zip(names, numbers) { values[String(name)] = Int(number) }
        return KernelCounters(row: row, values: values)
    }

    /// The `row` counters of `file` in the test process's own namespace.
    public static func read(_ file: String, row: String) throws -> KernelCounters {
        try parse(try String(contentsOfFile: file, encoding: .utf8), row: row)
    }

    /// The `row` counters of `file` in `namespace`, one of `path`'s (read there by `cat`: /proc/net is per namespace).
    public static func read(_ file: String, row: String, in path: NetworkPath, namespace: String) throws -> KernelCounters {
        let outcome = try path.run(in: namespace, "/bin/cat", [file], timeout: 10)
        guard outcome.status == 0 else {
            throw TestServerError(message: "cat \(file) in \(namespace): \(outcome.stderr)")
        }
        return try parse(outcome.stdout, row: row)
    }

    /// The Multipath TCP counters (`/proc/net/netstat`'s `MPTcpExt:` row) of the test process's namespace.
    public static func mptcp() throws -> KernelCounters {
        try read("/proc/net/netstat", row: "MPTcpExt:")
    }

    /// The Multipath TCP counters of `namespace`, one of `path`'s.
    public static func mptcp(in path: NetworkPath, namespace: String) throws -> KernelCounters {
        try read("/proc/net/netstat", row: "MPTcpExt:", in: path, namespace: namespace)
    }
}
