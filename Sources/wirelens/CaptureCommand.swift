import ArgumentParser

/// `wirelens capture <subcommand>`: packet captures of HTTP traffic.
struct CaptureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Analyse packet captures: TCP connections and HTTP exchanges as the wire saw them.",
        subcommands: [CaptureAnalyzeCommand.self])
}
