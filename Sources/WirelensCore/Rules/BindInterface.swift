/// Checks curl's `--interface` value (libcurl's CURLOPT_INTERFACE) before libcurl sees it: `if!NAME` names a
/// network interface, `host!ADDRESS` a local address or host name, and a bare value is an interface name or an IP
/// address of this host.
package enum BindInterface {
    /// Why `--interface` refuses `value`, or nil; `interfaceExists` tells whether this host has an interface of
    /// that name (the caller asks the kernel). A bare value that is neither an interface nor an IP address is
    /// refused (curl would resolve it as a host name: `host!NAME` says so).
    package static func problem(_ value: String, interfaceExists: (String) -> Bool) -> String? {
        let shown = RequestTextCheck.oneLine(value)
        if let name = value.dropPrefix("if!") {
            guard !name.isEmpty else { return "'\(shown)' names no interface; write e.g. if!eth0" }
            return interfaceExists(name) ? nil : "'\(shown)': this host has no interface '\(RequestTextCheck.oneLine(name))' (see 'ip link')"
        }
        if let host = value.dropPrefix("host!") {
            return host.isEmpty ? "'\(shown)' names no address; write e.g. host!192.0.2.7" : nil
        }
        guard !value.isEmpty else { return "an empty value names no interface; give e.g. eth0 or 192.0.2.7" }
        if interfaceExists(value) || HostMapping.isIPAddress(value) { return nil }
        return "'\(shown)' is neither an interface of this host nor an IP address (see 'ip -br addr'; host!NAME binds to a host name's address)"
    }
}

private extension String {
    /// The rest after `prefix`, or nil when the string does not start with it.
    func dropPrefix(_ prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}
