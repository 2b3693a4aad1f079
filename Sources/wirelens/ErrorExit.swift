import ArgumentParser
import Foundation
import WirelensCapture
import WirelensCheck
import WirelensCore
import WirelensProbe
import WirelensStore
import WirelensTarget
import WirelensUpload

/// The one place where an error becomes the process's exit code: its one line on stderr (help and the version on
/// stdout) and its documented code (see ExitStatus and the README's "Exit codes"); and where the libraries' typed
/// outcomes (a run's `TaskFailures`, an upload's `UploadEnding`) become theirs.
///
/// A command's `checkFlags()` (its `validate()`, see `CheckedCommand`) throws only `UsageError`: ArgumentParser
/// runs it while parsing and keeps no more of an error than its text. `run()` throws the libraries' typed errors
/// (`ProbeError`, `TargetError`, ...) or `CommandFailure`, and a command that wrote its own messages and report
/// ends with `ExitCode` (see `end(_:)`).
enum ErrorExit {
    /// False while `code(parsing:arguments:)` parses a command line again without the commands' checks.
    @TaskLocal static var checksFlags = true

    /// The exit code of a command line that did not parse: help and the version (exit 0, on stdout), one of
    /// ArgumentParser's usage errors (with a pointer to the command's help), or a `UsageError` from a `checkFlags()`.
    static func code(parsing error: any Error, arguments: [String]) -> Int32 {
        let code = Wirelens.exitCode(for: error)
        if code == .success {
            print(Wirelens.fullMessage(for: error))
            return ExitStatus.success.rawValue
        }
        let message = Wirelens.message(for: error)
        if code == .validationFailure {
            let first = message.split(separator: "\n").first.map(String.init) ?? message
            let name = command(in: arguments).map { " \($0)" } ?? ""
            Console.error("\(first) (see 'wirelens help\(name)')")
        } else {
            // A UsageError from a command's checkFlags(). ArgumentParser ran it before it looked for unknown options and
            // extra values: those come first, as they would without the check.
            let unchecked = $checksFlags.withValue(false) { () -> (any Error)? in
                do {
                    _ = try Wirelens.parseAsRoot(arguments)
                    return nil
                } catch {
                    return error
                }
            }
            if let unchecked, Wirelens.exitCode(for: unchecked) == .validationFailure {
                return Self.code(parsing: unchecked, arguments: arguments)
            }
            Console.error(message)
        }
        return ExitStatus.usage.rawValue
    }

    /// The exit code of an error a command's `run()` threw, after its line.
    static func code(running error: any Error) -> Int32 {
        if let exit = error as? ExitCode { return interruption(exit.rawValue) }
        if let status = status(of: error) {
            Console.error(line(of: error))
            return status.rawValue
        }
        // `wirelens help COMMAND` ends with ArgumentParser's request for the help text.
        if Wirelens.exitCode(for: error) == .success {
            print(Wirelens.fullMessage(for: error))
            return ExitStatus.success.rawValue
        }
        Console.error("\(error)")
        return ExitStatus.internalError.rawValue
    }

    /// The exit code of each error type of Wirelens's own; nil for any other error.
    static func status(of error: any Error) -> ExitStatus? {
        switch error {
        case is UsageError, is CheckConfigError: .usage
        case let error as ProbeError:
            switch error {
            case .malformedURL, .unsupportedScheme: .usage
            case .localFile: .localFile
            case .curl, .urlParser, .invalidHeader, .certificate, .cancelled: .internalError
            }
        case let error as TargetError:
            switch error.cause {
            case .listen: .listenUnavailable
            case .dataDirectory: .localFile
            }
        case is ListenFailure: .listenUnavailable
        case is HistoryTrouble: .historyUnavailable
        case let error as CommandFailure: error.status
        default: nil
        }
    }

    /// The exit code of a run from what its failed tasks tell: the first transport failure in task order wins over
    /// HTTP error statuses; an interrupted run exits `.interrupted` whatever failed.
    static func status(of failures: TaskFailures, interrupted: Bool) -> ExitStatus {
        if interrupted { return .interrupted }
        if let errorClass = failures.firstTransportError { return ExitStatus.forError(errorClass) }
        return failures.sawHTTPError ? .httpError : .success
    }

    /// The exit code of a segmented upload's ending.
    static func status(of ending: UploadEnding) -> ExitStatus {
        switch ending {
        case .completed: .success
        case .interrupted: .interrupted
        case .transportFailed(let errorClass): ExitStatus.forError(errorClass)
        case .refused: .httpError
        case .unreadableAnswer: .transfer
        case .verificationFailed: .verification
        }
    }

    /// The one line of an error of a command's own.
    private static func line(of error: any Error) -> String {
        switch error {
        case let error as CommandFailure: error.message
        case let error as CustomStringConvertible: error.description
        default: "\(error)"
        }
    }

    /// Ends a command that wrote its own messages with `code`: nothing for success, `ExitCode` otherwise.
    static func end(_ code: Int32) throws {
        guard code != ExitStatus.success.rawValue else { return }
        throw ExitCode(code)
    }

    /// A run that ended because of a signal exits 130 for SIGINT and 143 for SIGTERM (commands report 130 for both).
    static func interruption(_ code: Int32) -> Int32 {
        guard code == ExitStatus.interrupted.rawValue, SignalTrap.caught.load(ordering: .relaxed) == SIGTERM else {
            return code
        }
        return ExitStatus.terminated.rawValue
    }

    /// The subcommand named on the command line, if any, for the pointer to its help.
    private static func command(in arguments: [String]) -> String? {
        let names = Wirelens.configuration.subcommands.map { $0.configuration.commandName ?? "" }
        return arguments.first { names.contains($0) }
    }
}
