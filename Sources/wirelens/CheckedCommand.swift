import ArgumentParser

/// A command whose flags are checked while parsing: `checkFlags()` holds the checks that need no file system,
/// and ArgumentParser runs it as the command's `validate()`.
///
/// ArgumentParser validates before it looks for unknown options; `ErrorExit` parses once more without the checks
/// (`ErrorExit.checksFlags` false) so that an unknown option is still the error a user sees first.
protocol CheckedCommand: RunnableCommand {
    /// Checks the flags; a mistake is a `UsageError` (exit 2).
    func checkFlags() throws(UsageError)
}

extension CheckedCommand {
    func validate() throws(UsageError) {
        if ErrorExit.checksFlags { try checkFlags() }
    }
}
