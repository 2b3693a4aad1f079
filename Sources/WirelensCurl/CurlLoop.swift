import Dispatch
import Foundation
internal import CCurlShim
import Synchronization

/// The work a `CurlLoop` thread does around its multi handle. Made on the loop thread by the factory given to
/// `CurlLoop.start` and owned by that thread alone: nothing outside the thread holds a reference to it, so its state
/// needs no lock (and the type is not Sendable).
package protocol CurlLoopDriver: AnyObject, SendableMetatype {
    associatedtype Command: Sendable
    /// The multi handle the driver was made with.
    var multi: CurlMulti { get }
    /// Acts on one command another thread posted, in posting order.
    func receive(_ command: Command)
    /// One pass of work around `curl_multi_perform`; returns how long the loop may then wait for activity (ms).
    func pass() -> Int32
    /// `curl_multi_poll` failed: the driver decides what the transfers in flight become.
    func failed(_ error: CurlError)
    /// The loop ends (after `CurlLoop.shutdown`): the last chance to settle what is in flight, on the loop thread.
    func stop()
}

/// One thread that drives one multi handle, and the inbox through which other threads talk to it.
///
/// The inbox (a `Mutex`) is the only state other threads touch: they post commands and wake the thread through an
/// eventfd that `curl_multi_poll` watches. The multi handle and the driver are made on the loop thread and never
/// leave it. The lifetime is explicit: `shutdown()` ends the loop and waits for it; `requestShutdown()` only asks
/// (for a `deinit`, which must not block the releasing thread). `withCurlLoop` scopes a loop to a body.
package final class CurlLoop<Command: Sendable>: Sendable {
    private struct Inbox {
        var commands: [Command] = []
        /// The eventfd that wakes the loop; -1 once the loop ended and closed it.
        var wake: Int32
        var shutdownRequested = false
        var ended = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let inbox: Mutex<Inbox>

    private init(wake: Int32) {
        inbox = Mutex(Inbox(wake: wake))
    }

    /// Starts the loop thread: it makes the multi handle with `settings` and the driver with `makeDriver`, then runs
    /// until shut down. Returns once the thread runs; a failure to make either is thrown here.
    package static func start<Driver: CurlLoopDriver>(
        name: String, settings: CurlMulti.Settings, makeDriver: @escaping @Sendable (CurlMulti) throws(CurlError) -> Driver
    ) throws(CurlError) -> CurlLoop<Command> where Driver.Command == Command {
        try Libcurl.initialize()
        let wake = wl_wake_create()
        guard wake >= 0 else { throw CurlError("eventfd", message: "cannot make the loop's wake-up descriptor") }
        let loop = CurlLoop(wake: wake)
        CurlLoops.register(loop)
        let started = StartSignal()
        let thread = Thread {
            loop.runThread(settings: settings, makeDriver: makeDriver, started: started)
            loop.end()
        }
        thread.name = name
        thread.start()
        if let error = started.wait() { throw error }
        return loop
    }

    /// Hands a command to the loop thread. False when the loop is shutting down or ended: the command is dropped
    /// (every command accepted is received before the loop ends).
    @discardableResult
    package func post(_ command: Command) -> Bool {
        inbox.withLock { inbox in
            guard inbox.wake >= 0, !inbox.shutdownRequested else { return false }
            inbox.commands.append(command)
            wl_wake_signal(inbox.wake)
            return true
        }
    }

    /// Asks the loop to end after the commands already posted, without waiting for it.
    package func requestShutdown() {
        inbox.withLock { inbox in
            guard inbox.wake >= 0, !inbox.shutdownRequested else { return }
            inbox.shutdownRequested = true
            wl_wake_signal(inbox.wake)
        }
    }

    /// Ends the loop after the commands already posted and waits until its thread has finished.
    package func shutdown() async {
        requestShutdown()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = inbox.withLock { inbox in
                if !inbox.ended { inbox.waiters.append(continuation) }
                return inbox.ended
            }
            if ended { continuation.resume() }
        }
    }

    // MARK: The loop thread

    /// Makes the multi handle and the driver, reports the start, and runs the loop; both are released when this
    /// returns (the driver first: it holds the multi handle), before the loop is marked ended.
    private func runThread<Driver: CurlLoopDriver>(
        settings: CurlMulti.Settings, makeDriver: @Sendable (CurlMulti) throws(CurlError) -> Driver, started: StartSignal
    ) where Driver.Command == Command {
        let driver: Driver
        let wake = inbox.withLock { $0.wake }
        do throws(CurlError) {
            driver = try makeDriver(try CurlMulti(settings))
        } catch {
            started.signal(error)
            return
        }
        started.signal(nil)
        var commands: [Command] = []
        while true {
            let stopping = inbox.withLock { inbox in
                swap(&commands, &inbox.commands)
                return inbox.shutdownRequested
            }
            for command in commands { driver.receive(command) }
            commands.removeAll(keepingCapacity: true)
            if stopping { break }
            let timeout = driver.pass()
            do {
                if try driver.multi.poll(timeoutMillis: timeout, wake: wake) { wl_wake_drain(wake) }
            } catch {
                driver.failed(error)
            }
        }
        driver.stop()
    }

    /// Marks the loop ended, closes the wake-up descriptor and resumes whoever waits in `shutdown()`.
    private func end() {
        CurlLoops.unregister(self)
        let waiters = inbox.withLock { inbox in
            if inbox.wake >= 0 { close(inbox.wake) }
            inbox.wake = -1
            inbox.ended = true
            inbox.commands.removeAll()
            let waiting = inbox.waiters
            inbox.waiters.removeAll()
            return waiting
        }
        waiters.forEach { $0.resume() }
    }
}

extension CurlLoop: EndableLoop {}

/// A loop the process can end and wait for.
protocol EndableLoop: AnyObject, Sendable {
    func shutdown() async
}

/// The loops still running in the process, so that it ends them before it exits.
///
/// A loop released without `shutdown()` (an engine's `deinit` only asks it to end) goes on freeing its handles on its
/// own thread; a process that exits meanwhile runs libcurl's and OpenSSL's exit handlers under that thread's feet
/// (seen as "double free" and SIGSEGV at the end of HTTPS runs). `shutdownAll()` before `exit` ends every loop and
/// waits until each has freed its handles.
package enum CurlLoops {
    private static let live = Mutex<[ObjectIdentifier: any EndableLoop]>([:])

    static func register(_ loop: any EndableLoop) {
        live.withLock { $0[ObjectIdentifier(loop)] = loop }
    }

    static func unregister(_ loop: any EndableLoop) {
        _ = live.withLock { $0.removeValue(forKey: ObjectIdentifier(loop)) }
    }

    /// Ends every loop still running (transfers in flight are cancelled) and waits until their threads have freed
    /// their handles.
    package static func shutdownAll() async {
        let loops = live.withLock { Array($0.values) }
        for loop in loops { await loop.shutdown() }
    }

    /// The loops still running.
    package static var count: Int { live.withLock { $0.count } }
}

/// Runs `body` with a loop started as `CurlLoop.start` does, and shuts the loop down (waiting for its thread) when the
/// body returns or throws.
package func withCurlLoop<Driver: CurlLoopDriver, Result>(
    name: String, settings: CurlMulti.Settings, makeDriver: @escaping @Sendable (CurlMulti) throws(CurlError) -> Driver,
    _ body: (CurlLoop<Driver.Command>) async throws -> Result
) async throws -> Result {
    let loop = try CurlLoop<Driver.Command>.start(name: name, settings: settings, makeDriver: makeDriver)
    do {
        let result = try await body(loop)
        await loop.shutdown()
        return result
    } catch {
        await loop.shutdown()
        throw error
    }
}

/// How a loop thread tells `CurlLoop.start` that it runs, or why it could not start.
private final class StartSignal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let failure = Mutex<CurlError?>(nil)

    func signal(_ error: CurlError?) {
        failure.withLock { $0 = error }
        semaphore.signal()
    }

    func wait() -> CurlError? {
        semaphore.wait()
        return failure.withLock { $0 }
    }
}
