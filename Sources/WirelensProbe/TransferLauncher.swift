import WirelensCore
import WirelensCurl

/// Makes a transaction's transfer from what a task's lifecycle decided: the context its callbacks fill, wired to the
/// engine's tables, and the libcurl settings its easy handle gets (through `CurlPolicy` and `RedirectPolicy`).
///
/// It decides nothing of its own: the attempt and the access come from `TaskLifecycle`, the libcurl terms from the
/// policies; the engine configures the handle with the settings and adds it.
struct TransferLauncher {
    /// The engine's per-connection tables, where each transfer finds its socket.
    let sockets: ConnectionSockets
    /// The loop thread's host facts, for transfers of runs that read the kernel's.
    let host: HostSampler
    /// Raised when the run is cancelled, for a pipe body's reader waiting for its writer.
    let pipeStop: PipeStop
    let progress: TransferProgress?
    /// Which h2c prior-knowledge transfers open their origin's connection and which join it (libcurl before 8.0).
    let priorKnowledgeRoles: PriorKnowledgeRoles

    /// The context and settings of `attempt` of `task` to `target` with the `access` granted, on `handle`, from `now`.
    func transfer(for task: TaskState, _ attempt: TaskLifecycle.Attempt, target: TargetURL,
                  access: TaskLifecycle.Access, handle: CurlEasy, now: Int64) -> (TransferContext, TransferSettings) {
        let options = task.profile.options
        let rules = task.profile.rules
        let response = ResponseIntake(sink: task.spec.response, capturesHeaders: options.includeResponseHeaders,
                                      followsRedirects: access.followsRedirects)
        let ctx = TransferContext(
            handle: handle, task: task, kind: attempt.kind, target: target, method: attempt.method,
            body: attempt.sendsBody ? task.spec.body : .none, response: response,
            tracksActivity: options.idleTimeout != nil, progress: progress, now: now)
        ctx.sockets = sockets
        ctx.host = options.readsKernelFacts ? host : nil
        ctx.kernel.multipath = options.multipath
        ctx.kernel.readsTCP = options.readsKernelFacts
        ctx.kernel.keepsFacts = options.keepsTransactionFacts || attempt.sendsBody
        ctx.kernel.handshakeStartsTransfer = target.scheme == "http" && !rules.throughProxy
        ctx.kernel.multiplexes = options.multiplex && CurlPolicy.mayUseHTTP2(options.httpVersion, scheme: target.scheme)
        ctx.kernel.speaksPriorKnowledge = options.httpVersion == .http2PriorKnowledge
        ctx.access.keepsCredentials = access.keepsCredentials
        ctx.access.refusesLinkLocal = access.refusesLinkLocal
        ctx.marks.retryWait = attempt.retryWait
        ctx.request.reader.stop = pipeStop
        ctx.request.reader.waitLimit = options.idleTimeout
        let headers = attempt.sendsBody ? task.spec.headers : RedirectPolicy.bodilessHeaders(task.spec.headers)
        var settings = TransferSettings(
            url: target.text, method: ctx.method, body: ctx.request.source, bodyKind: attempt.bodyKind,
            uploadBufferSize: CurlPolicy.uploadBuffer(options.httpVersion, scheme: target.scheme),
            keepsCredentials: access.keepsCredentials, refusesLinkLocal: access.refusesLinkLocal,
            headers: RedirectPolicy.headers(headers, keepsCredentials: access.keepsCredentials),
            remainingMicros: access.remainingMicros, sendBuffer: options.sendBuffer,
            receiveBuffer: options.receiveBuffer, reportsIncomingTraffic: ctx.tracksActivity)
        var role: PriorKnowledgeRole?
        if options.httpVersion == .http2PriorKnowledge, options.reuseConnections, Libcurl.h2cReuseBroken {
            role = priorKnowledgeRoles.role(for: target.origin)
        }
        CurlPolicy.connection(options, scheme: target.scheme, role: role, brokenH2CReuse: Libcurl.h2cReuseBroken,
                              into: &settings)
        CurlPolicy.cookies(options, store: task.profile.cookies, keepsCredentials: access.keepsCredentials,
                           into: &settings)
        if let role { ctx.priorKnowledge = PriorKnowledgeJoin(role: role, roles: priorKnowledgeRoles, settings: settings) }
        return (ctx, settings)
    }

    /// Starts an h2c joiner again: libcurl wanted a new connection for it (the origin's connection was going away,
    /// or had no stream left), which the joiner refused before any packet left. It joins the connection another
    /// opener is making, or (at the latest on its `maxRejoins`th refusal) opens one itself. Its wait so far stays its
    /// queue. False when it could not start again (not a joiner, or libcurl failed: the transfer then ends with its
    /// failure).
    func restart(_ ctx: TransferContext, in multi: CurlMulti) -> Bool {
        guard var joined = ctx.priorKnowledge, joined.role == .joins else { return false }
        let easy = ctx.handle
        var settings = joined.settings
        let role = priorKnowledgeRoles.rejoinRole(for: ctx.target.origin, mayJoin: joined.rejoins + 1 < Self.maxRejoins)
        CurlPolicy.connection(ctx.task.profile.options, scheme: ctx.target.scheme, role: role,
                              brokenH2CReuse: Libcurl.h2cReuseBroken, into: &settings)
        joined.rejoin(as: role, settings: settings)
        ctx.priorKnowledge = joined
        do throws(CurlError) {
            try multi.remove(easy)
            easy.reset()
            try ctx.task.profile.configurator.configure(easy, for: settings, observer: ctx)
            try multi.add(easy)
            ctx.restartedInLibcurl()
            return true
        } catch {
            ctx.failure.engine = error.description
            return false
        }
    }

    /// How often an h2c joiner may be refused a new connection before it opens one itself.
    static let maxRejoins = 3
}
