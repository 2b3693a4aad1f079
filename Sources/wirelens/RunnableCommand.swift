import ArgumentParser

/// A command that `Wirelens.main()` runs: every leaf command of ours is one, so that a single cast of the parsed
/// command tells both how to run it and whether its error lines are silenced (each cast to a protocol searches the
/// binary's conformance records once per process).
protocol RunnableCommand: AsyncParsableCommand {
    /// True when the command line asked for no error lines (`-s` without `-S`).
    var silencesErrors: Bool { get }
}

extension RunnableCommand {
    /// A command without the report flags writes its errors.
    var silencesErrors: Bool { false }
}
