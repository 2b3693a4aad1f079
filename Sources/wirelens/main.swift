import Foundation

// The entry point: parse, run, exit with the documented code. Errors are one line on stderr.
let status = await CommandLineEntry.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
