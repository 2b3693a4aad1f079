import WirelensCore

/// A parsed `-w/--write-out` format, after curl's: text with `%{variable}`s, `%%`, `\n`-style escapes and
/// `%{stdout}`/`%{stderr}` switching the stream the rest goes to.
///
/// Parsing is done once, before any task runs: a format that cannot be parsed is a usage error, and the unknown
/// variables are known (and warned about) before the first task prints. `render` is then a pure function of one
/// task's `WriteOutValues`.
package struct WriteOut: Sendable, Equatable {
    /// Where a piece of the output goes.
    package enum Stream: Sendable, Equatable {
        case stdout
        case stderr
    }

    /// One piece of a parsed format.
    package enum Piece: Sendable, Equatable {
        /// Text written as it is (escapes already resolved).
        case text(String)
        /// A known variable, by name (`json` included).
        case variable(String)
        /// `%{stdout}` or `%{stderr}`: the rest goes to this stream.
        case stream(Stream)
    }

    /// A format that cannot be used, with its one-line message.
    package struct ParseError: Error, Equatable, CustomStringConvertible {
        package let message: String
        package var description: String { message }
    }

    /// The pieces in order; an unknown variable leaves no piece (it prints nothing, as in curl).
    package let pieces: [Piece]

    /// The unknown variables' names, each once, in the order they first appear.
    package let unknownVariables: [String]

    /// Every variable name `%{…}` accepts, besides `json`, `stdout` and `stderr`.
    package static var variables: [String] { WriteOutValues.names }

    /// Parses `format`: `%{name}`, `%%` for `%`, `\n`, `\r`, `\t` and `\\` (another `\x` stays as written, as in
    /// curl); a `%` before anything else is itself. Throws for a `%{` without its `}`.
    package init(parsing format: String) throws(ParseError) {
        var pieces: [Piece] = []
        var unknown: [String] = []
        var text = ""
        func flush() {
            if !text.isEmpty { pieces.append(.text(text)) }
            text = ""
        }
        let scalars = Array(format.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            let next: Unicode.Scalar? = i + 1 < scalars.count ? scalars[i + 1] : nil
            if c == "\\", let next {
                switch next {
                case "n": text.append("\n")
                case "r": text.append("\r")
                case "t": text.append("\t")
                case "\\": text.append("\\")
                default: text.unicodeScalars.append(c); text.unicodeScalars.append(next)
                }
                i += 2
            } else if c == "%", next == "%" {
                text.append("%")
                i += 2
            } else if c == "%", next == "{" {
                guard let close = scalars[(i + 2)...].firstIndex(of: "}") else {
                    // The excerpt stops at a control character, so that the message stays one line.
                    let rest = String(String.UnicodeScalarView(scalars[i...].prefix(24).prefix { $0.value >= 0x20 }))
                    throw ParseError(message: "-w: '\(rest)' has no closing '}'; write %{name}, or %% for a plain %")
                }
                let name = String(String.UnicodeScalarView(scalars[(i + 2)..<close]))
                flush()
                switch name {
                case "stdout": pieces.append(.stream(.stdout))
                case "stderr": pieces.append(.stream(.stderr))
                case "json": pieces.append(.variable(name))
                case _ where WriteOutValues.names.contains(name): pieces.append(.variable(name))
                default: if !unknown.contains(name) { unknown.append(name) }
                }
                i = close + 1
            } else {
                text.unicodeScalars.append(c)
                i += 1
            }
        }
        flush()
        self.pieces = pieces
        self.unknownVariables = unknown
    }

    /// The one-line warning about the unknown variables (nil when there are none).
    package var unknownWarning: String? {
        guard !unknownVariables.isEmpty else { return nil }
        let names = unknownVariables.map { "'\($0)'" }.joined(separator: ", ")
        let noun = unknownVariables.count == 1 ? "variable" : "variables"
        return "warning: unknown --write-out \(noun) \(names) (printed as nothing); see docs/curl-compatibility.md for the variables"
    }

    /// The output for one task: text per stream, in order (adjacent text for one stream joined).
    package func render(_ values: WriteOutValues) -> [(stream: Stream, text: String)] {
        var out: [(stream: Stream, text: String)] = []
        var stream = Stream.stdout
        func emit(_ text: String) {
            guard !text.isEmpty else { return }
            if let last = out.last, last.stream == stream {
                out[out.count - 1].text += text
            } else {
                out.append((stream, text))
            }
        }
        for piece in pieces {
            switch piece {
            case .text(let text): emit(text)
            case .variable("json"): emit(values.json)
            case .variable(let name): emit(values.text(of: name) ?? "")
            case .stream(let next): stream = next
            }
        }
        return out
    }
}
