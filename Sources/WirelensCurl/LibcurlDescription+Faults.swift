import WirelensCore

/// The faults of libcurl's versions that the engine works around.
extension LibcurlDescription {
    /// True for libcurl before 8.0.0, which fails a prior-knowledge transfer that lands on an existing h2c
    /// connection with "Error in the HTTP2 framing layer" (curl PR #10643): the engine then lets only the first
    /// transfer to an origin use prior knowledge (`PriorKnowledgeRole` in WirelensProbe).
    package var h2cReuseBroken: Bool {
        guard let v = versionTriple else { return false }
        return v.0 < 8
    }
}
