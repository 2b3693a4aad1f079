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

    /// The settings of an h2c joiner libcurl wanted a new connection for, starting again: it joins the connection
    /// another opener is making, or, when it may join no more (`mayJoin` false), opens one itself.
    func rejoin(_ ctx: TransferContext, _ joined: inout PriorKnowledgeJoin, mayJoin: Bool) -> TransferSettings {
        var settings = joined.settings
        let role = priorKnowledgeRoles.rejoinRole(for: ctx.target.origin, mayJoin: mayJoin)
        CurlPolicy.connection(ctx.task.profile.options, scheme: ctx.target.scheme, role: role,
                              brokenH2CReuse: Libcurl.h2cReuseBroken, into: &settings)
        joined.rejoin(as: role, settings: settings)
        return settings
    }
}
