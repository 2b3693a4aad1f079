import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import WirelensCore

/// The built-in HTTP/1.1 target server: start it in-process, read its port, stop it.
///
/// ```swift
/// let server = try await TargetServer.start(TargetConfig())
/// print(server.baseURL)   // http://127.0.0.1:PORT
/// try await server.stop()
/// ```
package final class TargetServer: Sendable {
    /// The bound address and port.
    package let host: String
    package let port: Int
    /// The directory holding segment uploads.
    package let dataDirectory: String
    /// Whether the listening socket is Multipath TCP: false without `TargetConfig.multipath`, and where the kernel
    /// refused the protocol (then it is plain TCP, and `multipathRefusal` says why).
    package let multipath: Bool
    /// The kernel's refusal of an MPTCP socket (its errno text) when `TargetConfig.multipath` fell back to TCP.
    package let multipathRefusal: String?
    private let ownsDataDirectory: Bool
    private let group: MultiThreadedEventLoopGroup
    private let threadPool: NIOThreadPool
    private let channel: Channel

    private init(host: String, port: Int, dataDirectory: String, ownsDataDirectory: Bool, multipath: Bool,
                 multipathRefusal: String?, group: MultiThreadedEventLoopGroup, threadPool: NIOThreadPool,
                 channel: Channel) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.multipath = multipath
        self.multipathRefusal = multipathRefusal
        self.ownsDataDirectory = ownsDataDirectory
        self.group = group
        self.threadPool = threadPool
        self.channel = channel
    }

    /// `http://HOST:PORT` (IPv6 hosts in brackets).
    package var baseURL: String {
        host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
    }

    /// The kernel receive buffer of a shaped target: about 20 ms of its rate, at least 8 KiB, at most 256 KiB (the
    /// kernel doubles the value for its own bookkeeping). What it holds is acknowledged before the server reads it,
    /// so it is kept small: on a real slow link those bytes would still be on their way.
    static func shapedReceiveBuffer(rate: Int64) -> Int {
        Int(min(256 * 1024, max(8 * 1024, rate / 50)))
    }

    /// Binds and starts serving; throws a TargetError when the data directory or the address cannot be used.
    package static func start(_ config: TargetConfig) async throws -> TargetServer {
        let (dataDirectory, owns) = try prepareDataDirectory(config.dataDirectory)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, config.threads))
        let threadPool = NIOThreadPool(numberOfThreads: 1)
        threadPool.start()
        let endpoints = TargetEndpoints(config: config, store: UploadStore(root: dataDirectory), threadPool: threadPool)
        var bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.autoRead, value: false)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
        if let size = config.receiveBuffer ?? config.rateBytesPerSecond.map(Self.shapedReceiveBuffer(rate:)) {
            bootstrap = bootstrap.serverChannelOption(ChannelOptions.socketOption(.so_rcvbuf), value: size)
        }
        if let rate = config.rateBytesPerSecond {
            // Small reads, one per read(): the token bucket then paces the request body finely. A small kernel
            // receive buffer too (set on the listening socket, so accepted ones start with it and the window scale
            // fits it): a body the server has not read yet then waits unacknowledged in the client's send queue,
            // as on a slow link, instead of megabytes of it being acknowledged into an autotuned buffer at once.
            bootstrap = bootstrap
                .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 1)
                .childChannelOption(ChannelOptions.recvAllocator,
                                    value: FixedSizeRecvByteBufferAllocator(capacity: TokenBucket.chunkSize(rate: rate)))
        }
        bootstrap = bootstrap.childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                try channel.pipeline.syncOperations.addHandler(ConnectionHandler(endpoints: endpoints))
            }
        }
        let channel: Channel
        var multipath = config.multipath
        var refusal: String?
        do {
            do {
                channel = try await bootstrap.enableMPTCP(multipath).bind(host: config.host, port: config.port).get()
            } catch let error as IOError where multipath && Self.refusesMultipath(error.errnoCode) {
                // The kernel has no MPTCP for this socket (net.mptcp.enabled=0, no CONFIG_MPTCP): plain TCP, as
                // the client's --mptcp falls back.
                multipath = false
                refusal = String(cString: strerror(error.errnoCode))
                channel = try await bootstrap.enableMPTCP(false).bind(host: config.host, port: config.port).get()
            }
        } catch {
            try? await group.shutdownGracefully()
            try? await threadPool.shutdownGracefully()
            if owns { try? FileManager.default.removeItem(atPath: dataDirectory) }
            let failure = ListenFailure(host: config.host, port: config.port, errorNumber: (error as? IOError)?.errnoCode,
                                        detail: "\(error)")
            throw TargetError(message: failure.description, cause: .listen(failure))
        }
        let port = channel.localAddress?.port ?? config.port
        return TargetServer(host: config.host, port: port, dataDirectory: dataDirectory, ownsDataDirectory: owns,
                            multipath: multipath, multipathRefusal: refusal, group: group, threadPool: threadPool,
                            channel: channel)
    }

    /// Whether socket()'s errno says the kernel refuses IPPROTO_MPTCP (the errors curl's and the client's
    /// fallback take as "no MPTCP here"), as opposed to a failure of the address itself.
    static func refusesMultipath(_ errorNumber: CInt) -> Bool {
        [EPROTONOSUPPORT, EINVAL, ENOPROTOOPT].contains(errorNumber)
    }

    /// Closes the listener and every connection, and removes the data directory if the server made it.
    package func stop() async throws {
        try? await channel.close()
        try await group.shutdownGracefully()
        try await threadPool.shutdownGracefully()
        if ownsDataDirectory { try? FileManager.default.removeItem(atPath: dataDirectory) }
    }

    /// Creates the data directory if needed; nil means a fresh temporary directory the server owns.
    private static func prepareDataDirectory(_ path: String?) throws -> (String, Bool) {
        if let path {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw TargetError(message: "cannot use --data-dir '\(path)': \(error.localizedDescription)", cause: .dataDirectory)
            }
            guard access(path, W_OK) == 0 else {
                throw TargetError(message: "cannot write to --data-dir '\(path)': \(String(cString: strerror(errno)))", cause: .dataDirectory)
            }
            return (path, false)
        }
        var template = Array((FileManager.default.temporaryDirectory.path + "/wirelens-target-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw TargetError(message: "cannot create a temporary data directory: \(String(cString: strerror(errno)))",
                              cause: .dataDirectory)
        }
        return (String(cString: made), true)
    }
}
