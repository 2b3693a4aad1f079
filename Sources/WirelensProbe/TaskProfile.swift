import Foundation
import WirelensCore
import WirelensCurl

/// What the loop builds from one set of task options: the options, the lifecycle rules, and the libcurl settings and
/// header lists their transfers use. Loop-owned: made and read on the engine's loop thread only.
final class TaskProfile {
    let options: ProbeOptions
    let rules: LifecycleRules
    let curl: CurlSettings
    let headerLists: RequestHeaderLists
    /// The cookie engine of the profile's transfers (nil: none), loaded with the options' cookie files.
    let cookies: CurlCookieStore?

    init(options: ProbeOptions, anchor: ClockAnchor) throws(CurlError) {
        self.options = options
        rules = LifecycleRules(options: options, anchor: anchor)
        curl = CurlPolicy.settings(options)
        headerLists = try CurlPolicy.headerLists(options)
        cookies = try CurlPolicy.cookieStore(options)
    }

    /// Called as a run of the profile's tasks starts: a profile whose runs each start afresh (a check's) forgets the
    /// cookies of the previous one.
    func runStarts() {
        guard options.cookies.clearedPerRun, let cookies else { return }
        try? cookies.clear()
    }

    /// Called when a run of the profile's tasks has ended: writes the cookie jar, if one was asked for. A jar that
    /// cannot be written is left as it was (the CLI made it, writable, before the run).
    func runEnded() {
        guard let jar = options.cookies.jar, let cookies else { return }
        try? cookies.write(to: jar)
    }

    /// The configurator of the profile's easy handles.
    var configurator: EasyConfigurator { EasyConfigurator(settings: curl, headers: headerLists) }

    /// The system resolver's transport, read once: TCP when resolv.conf or RES_OPTIONS says `use-vc`, else UDP.
    static let systemResolver = DomainResolutionProtocol.systemResolver(
        resolvConf: try? String(contentsOfFile: "/etc/resolv.conf", encoding: .utf8),
        resOptions: ProcessInfo.processInfo.environment["RES_OPTIONS"])

    /// True when the profile's transfers read the kernel's facts while they run.
    var samplesTCP: Bool { options.readsKernelFacts && options.tcpSampleInterval > 0 }
}
