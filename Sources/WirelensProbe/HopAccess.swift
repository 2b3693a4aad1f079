import WirelensCore

/// What one hop of a task may do, as the task's lifecycle granted it: send the secret headers, connect to a
/// link-local address; and the refusal of a connection the hop was not allowed to make.
struct HopAccess {
    /// True when the transfer sends the secret headers: its origin is the task's first, or hops are trusted.
    var keepsCredentials = true
    /// True when the transfer may not connect to a link-local address (a hop elsewhere, in a run that refuses them).
    var refusesLinkLocal = false
    /// Why a connection was refused before it was made (a hop whose name led into a link-local address); the first.
    private(set) var refusal: String?

    /// Decides whether libcurl may open a socket to `address` (4 or 16 bytes) of `host`: not to a link-local address
    /// when the hop refuses them, and then the refusal, naming the host and the address, is the transfer's error.
    mutating func mayConnect(to address: ArraySlice<UInt8>, host: String) -> Bool {
        guard refusesLinkLocal, LinkLocalAddress.contains(address) else { return true }
        if refusal == nil {
            let shown = LinkLocalAddress.text(of: address).map { "\(host) (\($0))" } ?? host
            refusal = RedirectPolicy.Refusal.linkLocal(shown).description
        }
        return false
    }
}
