import WirelensCore
import WirelensCurl

extension TransferContext {
    /// What the current attempt saw, ended at `end` with `error`, with libcurl's figures from `info` (`numConnects`:
    /// the connections libcurl opened for it), gathered from the context's values.
    func observation(info: EasyInfo, numConnects: Int, error: TransferError?, end: Int64) -> TransferObservation {
        let facts = kernel.facts()
        let at = connection
        var seen = TransferObservation(
            kind: marks.kind, url: target.text, method: method, hostIsIPLiteral: target.hostIsIPLiteral,
            usesTLS: target.scheme == "https", fetchStart: marks.fetchStart, connectionReady: marks.connectionReady,
            socketOpened: marks.socketOpenedAt, connected: marks.connectedAt, requestEnd: requestEnd,
            responseStart: marks.responseStart, headerOutAt: marks.headerOutAt, firstBodyOutAt: marks.firstBodyOutAt,
            expectSent: marks.expectSent, end: end, connectionOpened: marks.connectionOpened,
            connectionClosed: marks.connectionClosed,
            curlTimers: resends.attemptTimers(info.timers), numConnects: numConnects, protocolName: info.protocolName,
            requestHeaderBytes: resends.attemptRequestBytes(info.requestSize),
            responseHeaderBytes: info.headerSize, connectionId: at.connectionId,
            localAddress: at.localIP ?? info.localIP, localPort: at.localPort ?? info.localPort,
            remoteAddress: at.remoteIP ?? info.primaryIP, remotePort: at.remotePort ?? info.primaryPort,
            tlsVersion: at.tlsVersion, tlsCipher: at.tlsCipher, alpn: at.alpn, status: response.head.status,
            statusText: response.head.statusText, contentType: response.head.contentType,
            responseHeaders: response.head.capturesHeaders ? response.head.headers : nil,
            requestBodyBytes: request.sentBytes, responseBodyBytes: response.bodyBytes, retryWait: marks.retryWait,
            error: error, tcp: consume facts, readsTCP: kernel.readsTCP, keepsFacts: kernel.keepsFacts,
            connectionTotals: kernel.totals)
        seen.responseBodyWireBytes = info.bodyBytesReceived
        seen.mptcp = kernel.mptcp
        let options = task.profile.options
        seen.resolution = DomainResolutionProtocol.of(
            host: target.host, port: target.origin.port, hostIsIPLiteral: target.hostIsIPLiteral,
            reusedConnection: seen.reusedConnection, resolveEntries: options.resolve, usesDoH: options.dohURL != nil,
            systemResolver: TaskProfile.systemResolver)
        seen.dohLastAnswer = dohCompletions.last
        seen.writeTime = response.writeTime / 1000
        seen.lastReceived = marks.lastReceivedAt
        seen.http2ReadyBody = request.isSent && info.protocolName == "h2" && request.source.alwaysReady
        if let host, let atEnd = host.snapshot(now: end) {
            let local = seen.remoteAddress.map(HostFacts.isOnThisMachine) ?? false
            (seen.hostSend, seen.hostReceive) = hostMarks.facts(atEnd: atEnd, limits: host.limits, peerLocal: local)
        }
        return seen
    }

    /// The transaction's error (`TransferFailure.error`) from libcurl's `result` (nil when the engine ended the
    /// transfer itself) and what the context knows.
    func transferError(result: Result<Void, CurlError>?) -> TransferError? {
        var curl: TransferFailure.Curl?
        if case .failure(let error)? = result {
            curl = TransferFailure.Curl(code: Int(error.code), text: error.detail ?? error.message)
        }
        let rules = task.profile.rules
        return failure.error(curl: curl, refusal: access.refusal, connected: marks.connectionReady != nil,
                             dohURL: task.profile.options.dohURL, dohFailure: dohFailures.first,
                             abortError: rules.abortError)
    }
}
