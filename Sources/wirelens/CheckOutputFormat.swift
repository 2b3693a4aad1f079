import ArgumentParser

/// What `wirelens check` prints.
enum CheckOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case prometheus
}
