import WirelensCore

/// The JSON document of a probe run written while it runs, and where its bytes go: the head before the first
/// task, each task from the consuming thread as it ends, the rest once the run is over (one thread at a time).
package final class ProbeJSONWriter {
    private var stream: JSONRenderer.Stream?
    package let destination: ReportFile.Destination

    package init(destination: ReportFile.Destination) {
        self.destination = destination
    }

    package func begin(_ head: Report) throws {
        var stream = try JSONRenderer.Stream(head: head)
        // The head is written at once: a reader of a pipe sees the run's configuration before its first task.
        try stream.flush(emit: destination.write)
        self.stream = stream
    }

    package func add(_ task: TaskRecord) throws {
        try stream?.add(task, emit: destination.write)
    }

    /// Ends the document and puts the file in place.
    package func finish(_ report: Report) throws {
        try stream?.finish(report, emit: destination.write)
        stream = nil
        try destination.commit()
    }
}
