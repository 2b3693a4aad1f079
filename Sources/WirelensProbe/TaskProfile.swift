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

    init(options: ProbeOptions, anchor: ClockAnchor) throws(CurlError) {
        self.options = options
        rules = LifecycleRules(options: options, anchor: anchor)
        curl = CurlPolicy.settings(options)
        headerLists = try CurlPolicy.headerLists(options)
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
