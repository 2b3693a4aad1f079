/// The 4-tuple of a TCP flow with its two ends in a fixed order, so both directions find the same entry.
struct FlowKey: Hashable {
    var lower: Endpoint
    var upper: Endpoint

    init(_ a: Endpoint, _ b: Endpoint) {
        if a < b {
            lower = a
            upper = b
        } else {
            lower = b
            upper = a
        }
    }
}
