/// One of curl's `-d/--data` or `--data-binary` arguments: literal text, or `@FILE` (`@-`: stdin).
///
/// As in curl, the arguments are joined with `&` into one POST body, a `-d @FILE` loses its carriage returns and
/// line feeds, and a `--data-binary @FILE` is sent as it is.
package enum RequestData: Sendable, Equatable {
    /// The argument's own text, sent as it is.
    case text(String)
    /// The contents of a file (`-` for stdin); `binary` false strips CR and LF, as `-d @FILE` does.
    case file(path: String, binary: Bool)

    /// The argument as given to `-d` (`binary` false) or `--data-binary` (true).
    package static func parse(_ argument: String, binary: Bool) -> RequestData {
        argument.hasPrefix("@") ? .file(path: String(argument.dropFirst()), binary: binary) : .text(argument)
    }

    /// The bytes of a `-d` file as curl sends them: without any CR or LF.
    package static func strippingLineBreaks(_ bytes: [UInt8]) -> [UInt8] {
        bytes.filter { $0 != 0x0D && $0 != 0x0A }
    }

    /// The body of the arguments in order, joined with `&`, each file's bytes got from `read` (called once per
    /// file, in order).
    package static func body<Failure: Error>(_ items: [RequestData],
                                            read: (String) throws(Failure) -> [UInt8]) throws(Failure) -> [UInt8] {
        var body: [UInt8] = []
        for (offset, item) in items.enumerated() {
            if offset > 0 { body.append(UInt8(ascii: "&")) }
            switch item {
            case .text(let text): body += Array(text.utf8)
            case .file(let path, let binary):
                let bytes = try read(path)
                body += binary ? bytes : strippingLineBreaks(bytes)
            }
        }
        return body
    }
}
