import ArgumentParser

/// A subcommand that runs to an exit code: the entry point calls `execute()` instead of `run()`.
protocol AsyncCommand: ParsableCommand {
    /// Runs the command and returns its exit code (see ExitStatus).
    func execute() async -> Int32
}
