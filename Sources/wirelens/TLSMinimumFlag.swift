import ArgumentParser
import WirelensCore

/// curl's flags for the lowest TLS version a transfer accepts: `--tlsv1.2`, `--tlsv1.3`.
enum TLSMinimumFlag: String, EnumerableFlag {
    case tlsv12 = "tlsv1.2"
    case tlsv13 = "tlsv1.3"

    /// The version the flag names.
    var version: TLSVersion {
        switch self {
        case .tlsv12: .tls1_2
        case .tlsv13: .tls1_3
        }
    }

    static func name(for value: TLSMinimumFlag) -> NameSpecification { .customLong(value.rawValue) }

    static func help(for value: TLSMinimumFlag) -> ArgumentHelp? {
        "Use TLS \(value.version.rawValue) or later, as curl's --\(value.rawValue)."
    }
}

extension TLSMinimumFlag: TextOutputStreamable {
    /// The case's name, as `String(describing:)` gives it by default (ArgumentParser keys each flag by it), written
    /// directly: `String(describing:)` asks for this protocol first, and without it the runtime searched the binary's
    /// conformance records for three more ways to describe the value on every start-up.
    func write<Target: TextOutputStream>(to target: inout Target) {
        switch self {
        case .tlsv12: target.write("tlsv12")
        case .tlsv13: target.write("tlsv13")
        }
    }
}
