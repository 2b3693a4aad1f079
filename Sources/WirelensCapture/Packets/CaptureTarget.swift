import WirelensCaptureModel

#if canImport(Glibc)
import Glibc
#endif

/// Where a live capture should listen for a set of servers: the BPF filter for their addresses and ports,
/// and the interface that routes to them.
package struct CaptureTarget: Sendable, Equatable {
    package var interface: String
    package var filter: String

    /// The target for `servers`: loopback servers are captured on "lo", others on the interface whose address
    /// the kernel picks to reach them, and "any" when they are reached through more than one interface.
    package static func plan(servers: [Endpoint]) -> CaptureTarget {
        let interfaces = Set(servers.map { interfaceName(for: $0) ?? "any" })
        return CaptureTarget(interface: interfaces.count == 1 ? interfaces.first ?? "any" : "any",
                             filter: filter(for: servers))
    }

    /// `tcp and ((host A and port P) or …)`, one clause per distinct server.
    package static func filter(for servers: [Endpoint]) -> String {
        let clauses = Set(servers).sorted().map { "(host \($0.address) and port \($0.port))" }
        return clauses.isEmpty ? "tcp" : "tcp and (" + clauses.joined(separator: " or ") + ")"
    }

    /// The addresses a host name resolves to (numeric addresses as they are), for TCP.
    package static func resolve(host: String) -> [IPAddress] {
        if let literal = IPAddress(text: host) { return [literal] }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(list) }
        var result: [IPAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            if let address = current.pointee.ai_addr, let ip = ipAddress(of: address) { result.append(ip) }
            node = current.pointee.ai_next
        }
        return Array(Set(result)).sorted()
    }

    /// The interface holding the source address the kernel would use to reach `server` (a UDP connect sends
    /// nothing); nil when it cannot tell.
    static func interfaceName(for server: Endpoint) -> String? {
        if !server.address.isIPv6 && server.address.low >> 24 == 127 { return "lo" }
        if server.address.isIPv6 && server.address.high == 0 && server.address.low == 1 { return "lo" }
        let family = server.address.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var storage = sockaddr_storage()
        let length = fill(&storage, server)
        let connected = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        guard connected == 0 else { return nil }
        var local = sockaddr_storage()
        var localLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &localLength) }
        }
        guard named == 0 else { return nil }
        let source = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { ipAddress(of: UnsafeMutablePointer(mutating: $0)) }
        }
        guard let source else { return nil }
        var interfaces: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&interfaces) == 0 else { return nil }
        defer { freeifaddrs(interfaces) }
        var node = interfaces
        while let current = node {
            if let address = current.pointee.ifa_addr, ipAddress(of: address) == source {
                return String(cString: current.pointee.ifa_name)
            }
            node = current.pointee.ifa_next
        }
        return nil
    }

    private static func ipAddress(of address: UnsafeMutablePointer<sockaddr>) -> IPAddress? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                let v = UInt32(bigEndian: $0.pointee.sin_addr.s_addr)
                return IPAddress(v4: UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff))
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                var raw = $0.pointee.sin6_addr
                let bytes = withUnsafeBytes(of: &raw) { Array($0) }
                return bytes.withUnsafeBytes { IPAddress(v6High: ByteReader.u64($0, 0), low: ByteReader.u64($0, 8)) }
            }
        default:
            return nil
        }
    }

    private static func fill(_ storage: inout sockaddr_storage, _ server: Endpoint) -> socklen_t {
        withUnsafeMutablePointer(to: &storage) { pointer in
            if server.address.isIPv6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    $0.pointee.sin6_family = sa_family_t(AF_INET6)
                    $0.pointee.sin6_port = server.port.bigEndian
                    var bytes = [UInt8](repeating: 0, count: 16)
                    for i in 0..<8 {
                        bytes[i] = UInt8(server.address.high >> (56 - 8 * UInt64(i)) & 0xff)
                        bytes[8 + i] = UInt8(server.address.low >> (56 - 8 * UInt64(i)) & 0xff)
                    }
                    withUnsafeMutableBytes(of: &$0.pointee.sin6_addr) { $0.copyBytes(from: bytes) }
                    return socklen_t(MemoryLayout<sockaddr_in6>.size)
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                $0.pointee.sin_family = sa_family_t(AF_INET)
                $0.pointee.sin_port = server.port.bigEndian
                $0.pointee.sin_addr.s_addr = UInt32(truncatingIfNeeded: server.address.low).bigEndian
                return socklen_t(MemoryLayout<sockaddr_in>.size)
            }
        }
    }
}
