import Foundation

/// Why a server (`serve`, `target`) could not listen on its `--listen` address: one line that names the address
/// and what to do (the CLI gives both commands one exit code for it).
package struct ListenFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package let host: String
    package let port: Int
    /// The system's error number from bind/listen, when the failure had one.
    package let errorNumber: Int32?
    /// The failure's own text when it had no error number (a host name that does not resolve, for example).
    package let detail: String

    package init(host: String, port: Int, errorNumber: Int32?, detail: String) {
        self.host = host
        self.port = port
        self.errorNumber = errorNumber
        self.detail = detail
    }

    /// `HOST:PORT`, an IPv6 host in brackets.
    package var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// `127.0.0.1:9469 is in use: pick another --listen`, and likewise for the other reasons.
    package var description: String {
        switch errorNumber {
        case EADDRINUSE?: "\(address) is in use: pick another --listen"
        case EADDRNOTAVAIL?: "\(address) is not an address of this host: pick another --listen"
        case EACCES?: "\(address) needs privileges this process lacks (a port below 1024): pick another --listen"
        case let number?: "cannot listen on \(address): \(String(cString: strerror(number))): pick another --listen"
        case nil: "cannot listen on \(address): \(detail): pick another --listen"
        }
    }
}
