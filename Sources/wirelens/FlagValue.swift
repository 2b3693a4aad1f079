import ArgumentParser
import WirelensCore

/// A flag's value of type `Value` (a duration, a host mapping), as written: the value type's rule checks it when a
/// command's `checkFlags()` asks for it (`value(_:)`), and its refusal is the flag's one-line usage error.
///
/// ArgumentParser takes any text for it rather than refusing a bad one while it parses: that refusal would come
/// before an unknown option is found, in ArgumentParser's words ("The value 'soon' is invalid for ..."), and before
/// the command's other checks, which run in order in `checkFlags()` (see `CheckedCommand`).
///
/// `Value`'s rule is asked for by `value(_:)`, not by the type: the runtime builds a `FlagValue<X>`'s metadata
/// (every command's flags are reflected at start-up) without searching the binary's conformance records for X's.
struct FlagValue<Value: Sendable>: ExpressibleByArgument, Sendable {
    /// The text as given.
    let text: String

    init(argument: String) { text = argument }

    /// The help's "(default: …)" shows the text, as it did for a plain string.
    var defaultValueDescription: String { text }
}

extension FlagValue where Value: TextParsable {
    /// The value, or the usage error "FLAG " and the type's refusal.
    func value(_ flag: String) throws(UsageError) -> Value {
        do throws(ValueRefusal) {
            return try Value(parsing: text)
        } catch {
            throw UsageError("\(flag) \(error.message)")
        }
    }
}

extension FlagValue: ExpressibleByStringLiteral {
    /// A default written as its text (`var since: FlagValue<PositiveDuration> = "24h"`).
    init(stringLiteral text: String) { self.text = text }
}
