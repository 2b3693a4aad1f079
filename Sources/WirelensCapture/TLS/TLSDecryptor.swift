import WirelensCaptureModel

/// The record decryption of one TLS 1.2 or 1.3 connection, record by record as its two byte streams are
/// reassembled: the application data of each side comes out in order, the handshake messages that change keys
/// (TLS 1.3 Finished and KeyUpdate) are followed, nothing is kept beyond one record per side.
///
/// Keys come from the key log by the ClientHello's random: the TLS 1.2 master secret expanded with both randoms,
/// or the TLS 1.3 handshake and traffic secrets. A resumed TLS 1.2 session whose line is missing takes the master
/// secret an earlier full handshake of the capture had under the same session id or ticket.
struct TLSDecryptor {
    /// Where the decryption stands; `failure` says why it stopped when it did.
    enum Outcome: Equatable {
        /// No encrypted record yet, or keys awaited.
        case waiting
        case decrypting
        case failed(TLSInfo.Decryption, String)
    }

    /// Decrypted application data: bytes, the time of the record's first and last pieces (µs), and the ALPN
    /// protocol the server chose when the handshake told it.
    typealias Plaintext = (UnsafeRawBufferPointer, Int64, Int64, String?) -> Void

    /// What one side's records need.
    private struct Direction {
        /// The record being collected: its 5-byte header, then its payload.
        var record: [UInt8] = []
        var recordStart: Int64 = 0
        var cipher: AEADCipher?
        var iv: [UInt8] = []
        var sequence: UInt64 = 0
        /// TLS 1.3: the secret the current keys come from (for KeyUpdate), and whether the handshake is over.
        var secret: [UInt8] = []
        var application = false
        /// TLS 1.3: the side's Finished was read, and the key log did not hold its traffic secret yet (a live capture
        /// reads it as the client writes it).
        var needsTraffic = false
        /// TLS 1.2: the side sent its ChangeCipherSpec, its records from here on are encrypted.
        var encrypted = false
        /// Decrypted handshake bytes not yet a whole message.
        var handshake: [UInt8] = []
        /// Whole records waiting for the keys (a live capture sees the server's first encrypted records before
        /// its client writes the key log line): header + payload, first and last piece times.
        var pending: [([UInt8], Int64, Int64)] = []
        var pendingBytes = 0
        var failed = false
        var decryptedRecords = 0
        /// The record under way is decrypted piece by piece as its packets come (application data with the keys
        /// set): its payload length and bytes seen, TLS 1.2 GCM's explicit nonce, the plaintext so far (a buffer of
        /// `maxRecord` bytes, made on first use), its tag.
        var streaming = false
        var recordLength = 0
        var streamed = 0
        var explicitNonce: [UInt8] = []
        var plain: [UInt8] = []
        var plainCount = 0
        var tag: [UInt8] = []
    }

    /// The largest record accepted (RFC 8446: 2^14 + 256 of ciphertext).
    static let maxRecord = 5 + (1 << 14) + 256
    /// Encrypted bytes held per side while the keys are awaited.
    static let maxPending = 256 * 1024
    /// Records held at most per side while the keys are awaited (with `maxPending` bytes).
    static let maxPendingRecords = 1024
    /// Decrypted handshake bytes held at most per side while a message is incomplete.
    static let maxHandshake = 128 * 1024

    private let keyLog: KeyLog
    private let clientRandom: [UInt8]
    private let serverRandom: [UInt8]
    private let suite: TLSCipherSuite?
    private let suiteID: UInt16
    private let tls13: Bool
    /// TLS 1.2: the ClientHello's session id and ticket, and the ServerHello's session id (equal: resumed).
    private let sessionIdentities: [[UInt8]]
    private var client = Direction()
    private var server = Direction()
    private var keysReady = false
    private(set) var outcome = Outcome.waiting
    /// What stopped one side after records were decrypted.
    private(set) var note: String?
    /// The ALPN protocol the server chose in its EncryptedExtensions (TLS 1.3).
    private(set) var chosenALPN: String?
    /// The plaintext of the record being read: one buffer for every connection of the analysis (the key log's).
    private var scratch: UnsafeMutableRawBufferPointer { keyLog.scratch }

    /// The decryption of the connection whose hellos gave these values.
    init(keyLog: KeyLog, clientRandom: [UInt8], serverRandom: [UInt8], suite: UInt16, tls13: Bool,
         sessionIdentities: [[UInt8]]) {
        self.keyLog = keyLog
        self.clientRandom = clientRandom
        self.serverRandom = serverRandom
        self.suiteID = suite
        self.suite = TLSCipherSuite.supported[suite]
        self.tls13 = tls13
        self.sessionIdentities = sessionIdentities.filter { !$0.isEmpty }
        if self.suite == nil {
            outcome = .failed(.unsupportedCipherSuite, "cipher suite \(TLSCipherSuite.name(of: suite)) is not "
                + "decrypted (AES-GCM and ChaCha20-Poly1305 are)")
        }
    }

    /// The suite's name, for the report.
    var suiteName: String { TLSCipherSuite.name(of: suiteID) }

    /// True when records of that side are still worth following.
    func wantsBytes(fromClient: Bool) -> Bool {
        if case .failed = outcome { return false }
        return !(fromClient ? client.failed : server.failed)
    }

    /// How the decryption went, and why it stopped where it did.
    var status: (TLSInfo.Decryption, String?) {
        switch outcome {
        case .decrypting: return (.decrypted, note)
        case .failed(let kind, let why): return (kind, why)
        case .waiting:
            if keysReady || (client.pending.isEmpty && server.pending.isEmpty && keyLog.knows(clientRandom)) {
                return (.decrypted, nil)
            }
            return (.keysMissing, Self.missing)
        }
    }

    static let missing = "the key log has no secrets for this connection's client random"

    /// True once application data was decrypted (or is being): the HTTP reading of the plaintext is exact.
    var decrypts: Bool { outcome == .decrypting }

    /// A whole-or-partial record piece from one side: `type` and the record's header bytes come with its first
    /// piece. `plaintext` receives the application data (bytes, first-piece time, last-piece time).
    mutating func piece(_ payload: UnsafeRawBufferPointer, header: (UInt8, UInt8, UInt8, Int), first: Bool,
                        last: Bool, fromClient: Bool, time: Int64, plaintext: Plaintext) {
        if case .failed = outcome { return }
        if first {
            let stream = outcome == .decrypting && keysReady && header.0 == 23
                && Self.streams(fromClient ? client : server, tls13: tls13)
            if fromClient { client.streaming = stream } else { server.streaming = stream }
        }
        if fromClient ? client.streaming : server.streaming {
            var d = Direction()
            if fromClient { swap(&d, &client) } else { swap(&d, &server) }
            defer { if fromClient { swap(&d, &client) } else { swap(&d, &server) } }
            stream(payload, header, first: first, last: last, &d, fromClient: fromClient, time: time,
                   plaintext: plaintext)
            return
        }
        if fromClient {
            Self.collect(payload, header: header, first: first, &client, time: time)
        } else {
            Self.collect(payload, header: header, first: first, &server, time: time)
        }
        guard last else { return }
        var record: [UInt8] = []
        var start: Int64 = 0
        if fromClient {
            swap(&record, &client.record)
            start = client.recordStart
        } else {
            swap(&record, &server.record)
            start = server.recordStart
        }
        guard record.count >= 5 else { return }
        record[3] = UInt8((record.count - 5) >> 8)
        record[4] = UInt8((record.count - 5) & 0xff)
        whole(record, fromClient: fromClient, start: start, end: time, plaintext: plaintext)
        if fromClient { client.record = record } else { server.record = record }
    }

    private static func collect(_ payload: UnsafeRawBufferPointer, header: (UInt8, UInt8, UInt8, Int), first: Bool,
                                _ d: inout Direction, time: Int64) {
        if first {
            d.record.removeAll(keepingCapacity: true)
            d.record.append(header.0)
            d.record.append(header.1)
            d.record.append(header.2)
            d.record.append(0)
            d.record.append(0)
            d.recordStart = time
        }
        guard d.record.count + payload.count <= maxRecord else {
            d.failed = true
            return
        }
        d.record.append(contentsOf: payload)
    }

    /// One whole record (header included) from one side.
    private mutating func whole(_ record: [UInt8], fromClient: Bool, start: Int64, end: Int64,
                                plaintext: Plaintext) {
        let type = record[0]
        if !tls13 {
            if type == 20 {
                if fromClient { client.encrypted = true; client.sequence = 0 } else { server.encrypted = true; server.sequence = 0 }
                return
            }
            guard fromClient ? client.encrypted : server.encrypted else { return }
        } else if type != 23 {
            return  // TLS 1.3: CCS for compatibility, clear alerts; hellos are read by TLSConversation
        }
        // Records that waited for their keys go first, in order; this one waits behind them.
        flush(fromClient: fromClient, plaintext: plaintext)
        guard (fromClient ? client.pending : server.pending).isEmpty, resolve(fromClient: fromClient) else {
            hold(record, fromClient: fromClient, start: start, end: end)
            return
        }
        decrypt(record, fromClient: fromClient, start: start, end: end, plaintext: plaintext)
        flush(fromClient: !fromClient, plaintext: plaintext)
    }

    /// True once that side's keys are set: the connection's secrets found, and (TLS 1.3) the traffic secret that
    /// follows its Finished.
    private mutating func resolve(fromClient: Bool) -> Bool {
        if case .failed = outcome { return false }
        if !keysReady, !prepareKeys() { return false }
        guard fromClient ? client.needsTraffic : server.needsTraffic else { return true }
        guard let suite, let secrets = keyLog.secrets(for: clientRandom),
              let traffic = fromClient ? secrets.clientTraffic : secrets.serverTraffic else { return false }
        if fromClient {
            Self.setTLS13(&client, suite, secret: traffic, application: true)
            client.needsTraffic = false
        } else {
            Self.setTLS13(&server, suite, secret: traffic, application: true)
            server.needsTraffic = false
        }
        return true
    }

    /// Decrypts the records of one side that waited for keys, as far as the keys now go.
    private mutating func flush(fromClient: Bool, plaintext: Plaintext) {
        for _ in 0..<Self.maxPendingRecords {
            guard let (bytes, start, end) = (fromClient ? client.pending : server.pending).first,
                  resolve(fromClient: fromClient) else { return }
            if fromClient {
                client.pending.removeFirst()
                client.pendingBytes -= bytes.count
            } else {
                server.pending.removeFirst()
                server.pendingBytes -= bytes.count
            }
            decrypt(bytes, fromClient: fromClient, start: start, end: end, plaintext: plaintext)
        }
    }

    private mutating func hold(_ record: [UInt8], fromClient: Bool, start: Int64, end: Int64) {
        let total = (fromClient ? client.pendingBytes : server.pendingBytes) + record.count
        let count = (fromClient ? client.pending : server.pending).count + 1
        guard keyLog.grows, total <= Self.maxPending, count <= Self.maxPendingRecords else {
            outcome = .failed(.keysMissing, Self.missing)
            client.pending = []
            server.pending = []
            return
        }
        if fromClient {
            client.pending.append((record, start, end))
            client.pendingBytes = total
        } else {
            server.pending.append((record, start, end))
            server.pendingBytes = total
        }
    }

    /// Finds the secrets and sets both sides' ciphers; false while the key log has none for the client random.
    private mutating func prepareKeys() -> Bool {
        guard let suite else { return false }
        let secrets = keyLog.secrets(for: clientRandom)
        if tls13 {
            guard let secrets, let clientSecret = secrets.clientHandshake ?? secrets.clientTraffic,
                  let serverSecret = secrets.serverHandshake ?? secrets.serverTraffic else { return false }
            Self.setTLS13(&client, suite, secret: clientSecret, application: secrets.clientHandshake == nil)
            Self.setTLS13(&server, suite, secret: serverSecret, application: secrets.serverHandshake == nil)
        } else {
            var master = secrets?.masterSecret
            for identity in sessionIdentities where master == nil { master = keyLog.learnt(identity) }
            guard let master else { return false }
            for identity in sessionIdentities { keyLog.learn(identity, masterSecret: master) }
            let keys = TLSKeySchedule.tls12Keys(suite, masterSecret: master, clientRandom: clientRandom,
                                                serverRandom: serverRandom)
            client.cipher = AEADCipher(suite.algorithm, key: keys.client.key)
            client.iv = keys.client.iv
            server.cipher = AEADCipher(suite.algorithm, key: keys.server.key)
            server.iv = keys.server.iv
        }
        keysReady = true
        if client.cipher == nil || server.cipher == nil {
            outcome = .failed(.undecryptable, "libcrypto refused the keys")
        }
        return true
    }

    private static func setTLS13(_ d: inout Direction, _ suite: TLSCipherSuite, secret: [UInt8], application: Bool) {
        let keys = TLSKeySchedule.tls13Keys(suite, secret: secret)
        d.cipher = AEADCipher(suite.algorithm, key: keys.key)
        d.iv = keys.iv
        d.secret = secret
        d.sequence = 0
        d.application = application
    }

    /// Decrypts one record of one side and hands on what it carries.
    private mutating func decrypt(_ record: [UInt8], fromClient: Bool, start: Int64, end: Int64,
                                  plaintext: Plaintext) {
        if case .failed = outcome { return }
        guard let suite else { return }
        // The side's state is swapped out while it is worked on (no copy of its buffers).
        var d = Direction()
        if fromClient { swap(&d, &client) } else { swap(&d, &server) }
        defer { if fromClient { swap(&d, &client) } else { swap(&d, &server) } }
        guard !d.failed else { return }
        var result = open(record, &d, suite)
        if result == nil, tls13, !d.application, let secrets = keyLog.secrets(for: clientRandom),
           let traffic = fromClient ? secrets.clientTraffic : secrets.serverTraffic {
            // The end of the handshake was missed: the application keys may be the ones.
            Self.setTLS13(&d, suite, secret: traffic, application: true)
            result = open(record, &d, suite)
        }
        guard let (type, length) = result else { return failed(&d, fromClient: fromClient) }
        opened(type, UnsafeRawBufferPointer(rebasing: scratch[0..<length]), &d, suite, fromClient: fromClient,
               start: start, end: end, plaintext: plaintext)
    }

    /// A record that did not authenticate: the side stops (the connection, when nothing was decrypted yet).
    private mutating func failed(_ d: inout Direction, fromClient: Bool) {
        d.failed = true
        if outcome == .decrypting {
            note = "record \(d.sequence) from the \(fromClient ? "client" : "server") did not authenticate: "
                + "that side is not decrypted further"
        } else {
            outcome = .failed(.undecryptable, "the key log's secrets do not decrypt this connection (wrong key)")
        }
    }

    /// An authenticated record's plaintext of content `type`: application data goes on, handshake messages are read.
    private mutating func opened(_ type: UInt8, _ bytes: UnsafeRawBufferPointer, _ d: inout Direction,
                                 _ suite: TLSCipherSuite, fromClient: Bool, start: Int64, end: Int64,
                                 plaintext: Plaintext) {
        d.sequence &+= 1
        d.decryptedRecords += 1
        if outcome == .waiting { outcome = .decrypting }
        switch type {
        case 23:
            plaintext(bytes, start, end, chosenALPN)
        case 22:
            handshake(bytes, &d, suite, fromClient: fromClient)
        default:
            break  // alerts, and anything else
        }
    }

    /// True when that side's next application-data record can be decrypted piece by piece: its keys are the
    /// traffic keys and nothing waits before it.
    private static func streams(_ d: borrowing Direction, tls13: Bool) -> Bool {
        !d.failed && !d.needsTraffic && d.pending.isEmpty && d.cipher != nil
            && (tls13 ? d.application : d.encrypted && d.decryptedRecords > 0)
    }

    /// One piece of a record decrypted as it comes: the explicit nonce (TLS 1.2 GCM) starts the cipher, the
    /// ciphertext is decrypted into the side's plaintext buffer, the tag ends it with the record's last piece.
    private mutating func stream(_ payload: UnsafeRawBufferPointer, _ header: (UInt8, UInt8, UInt8, Int), first: Bool,
                                 last: Bool, _ d: inout Direction, fromClient: Bool, time: Int64,
                                 plaintext: Plaintext) {
        guard !d.failed, let suite, let cipher = d.cipher else { return }
        let explicit = suite.explicitNonceLength(tls13: tls13)
        let tagLength = AEADCipher.tagLength
        if first {
            d.recordStart = time
            d.recordLength = header.3
            d.streamed = 0
            d.plainCount = 0
            d.tag.removeAll(keepingCapacity: true)
            d.explicitNonce.removeAll(keepingCapacity: true)
            if d.plain.isEmpty { d.plain = [UInt8](repeating: 0, count: Self.maxRecord) }
            guard d.recordLength >= explicit + tagLength, d.recordLength + 5 <= Self.maxRecord,
                  explicit > 0 || begin(cipher, &d, header, explicitNonce: []) else {
                return failed(&d, fromClient: fromClient)
            }
        }
        let cipherEnd = d.recordLength - tagLength
        var i = 0
        while i < payload.count {
            let position = d.streamed
            let n: Int
            if position < explicit {
                n = min(explicit - position, payload.count - i)
                d.explicitNonce.append(contentsOf: UnsafeRawBufferPointer(rebasing: payload[i..<(i + n)]))
                if position + n == explicit, !begin(cipher, &d, header, explicitNonce: d.explicitNonce) {
                    return failed(&d, fromClient: fromClient)
                }
            } else if position < cipherEnd {
                n = min(cipherEnd - position, payload.count - i)
                let offset = d.plainCount
                let written = d.plain.withUnsafeMutableBytes { out in
                    cipher.update(UnsafeRawBufferPointer(rebasing: payload[i..<(i + n)]),
                                  into: UnsafeMutableRawBufferPointer(rebasing: out[offset...]))
                }
                guard let written else { return failed(&d, fromClient: fromClient) }
                d.plainCount += written
            } else {
                n = min(d.recordLength - position, payload.count - i)
                d.tag.append(contentsOf: UnsafeRawBufferPointer(rebasing: payload[i..<(i + n)]))
            }
            i += n
            d.streamed += n
        }
        guard last else { return }
        d.streaming = false
        guard d.streamed == d.recordLength, d.tag.withUnsafeBytes({ cipher.finish(tag: $0) }) else {
            return failed(&d, fromClient: fromClient)
        }
        var plain: [UInt8] = []
        swap(&plain, &d.plain)
        defer { swap(&plain, &d.plain) }
        var length = d.plainCount
        var type = header.0
        if tls13 {
            // The content type is the last non-zero byte; zeros after it are padding.
            while length > 0, plain[length - 1] == 0 { length -= 1 }
            guard length > 0 else { return failed(&d, fromClient: fromClient) }
            type = plain[length - 1]
            length -= 1
        }
        plain.withUnsafeBytes { bytes in
            opened(type, UnsafeRawBufferPointer(rebasing: bytes[0..<length]), &d, suite, fromClient: fromClient,
                   start: d.recordStart, end: time, plaintext: plaintext)
        }
    }

    /// Starts the cipher on a record of side `d` with its nonce and additional data.
    private func begin(_ cipher: AEADCipher, _ d: inout Direction, _ header: (UInt8, UInt8, UInt8, Int),
                       explicitNonce: [UInt8]) -> Bool {
        let plainLength = d.recordLength - explicitNonce.count - AEADCipher.tagLength
        let nonce = Self.nonce(iv: d.iv, sequence: d.sequence, explicit: explicitNonce)
        let aad = tls13
            ? [header.0, header.1, header.2, UInt8(d.recordLength >> 8), UInt8(d.recordLength & 0xff)]
            : Self.aad(sequence: d.sequence, header: (header.0, header.1, header.2), plainLength: plainLength)
        return nonce.withUnsafeBytes { n in aad.withUnsafeBytes { a in cipher.begin(nonce: n, aad: a) } }
    }

    /// A record's nonce: TLS 1.2 GCM's 4-byte salt and the record's explicit 8 bytes, else the 12-byte IV XOR the
    /// sequence number.
    private static func nonce(iv: [UInt8], sequence: UInt64, explicit: some Collection<UInt8>) -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: 12)
        if !explicit.isEmpty {
            for i in 0..<4 { nonce[i] = iv[i] }
            for (i, b) in explicit.prefix(8).enumerated() { nonce[4 + i] = b }
        } else {
            for i in 0..<12 { nonce[i] = iv[i] }
            for i in 0..<8 { nonce[4 + i] ^= UInt8(truncatingIfNeeded: sequence >> (56 - 8 * UInt64(i))) }
        }
        return nonce
    }

    /// TLS 1.2's additional data: sequence number, type, version, plaintext length.
    private static func aad(sequence: UInt64, header: (UInt8, UInt8, UInt8), plainLength: Int) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: sequence >> (56 - 8 * UInt64($0))) }
            + [header.0, header.1, header.2, UInt8(plainLength >> 8), UInt8(plainLength & 0xff)]
    }

    /// Authenticates and decrypts `record` into `scratch`: the inner content type and the plaintext's length.
    private mutating func open(_ record: [UInt8], _ d: inout Direction, _ suite: TLSCipherSuite) -> (UInt8, Int)? {
        guard let cipher = d.cipher else { return nil }
        let explicit = suite.explicitNonceLength(tls13: tls13)
        let payloadCount = record.count - 5
        guard payloadCount >= explicit + AEADCipher.tagLength else { return nil }
        let nonce = Self.nonce(iv: d.iv, sequence: d.sequence, explicit: record[5..<(5 + explicit)])
        let aad = tls13 ? Array(record[0..<5])
            : Self.aad(sequence: d.sequence, header: (record[0], record[1], record[2]),
                       plainLength: payloadCount - explicit - AEADCipher.tagLength)
        let count: Int? = record.withUnsafeBytes { bytes in
            nonce.withUnsafeBytes { n in
                aad.withUnsafeBytes { a in
                    cipher.open(UnsafeRawBufferPointer(rebasing: bytes[(5 + explicit)...]), nonce: n, aad: a,
                                into: scratch)
                }
            }
        }
        guard var length = count else { return nil }
        guard tls13 else { return (record[0], length) }
        // TLS 1.3: the content type is the last non-zero byte; zeros after it are padding.
        while length > 0, scratch[length - 1] == 0 { length -= 1 }
        guard length > 0 else { return nil }
        return (scratch[length - 1], length - 1)
    }

    /// Decrypted handshake bytes: TLS 1.3's Finished ends the handshake keys, a KeyUpdate moves to the
    /// next traffic secret, EncryptedExtensions tells the ALPN protocol; TLS 1.2's Finished is passed over.
    private mutating func handshake(_ bytes: UnsafeRawBufferPointer, _ d: inout Direction, _ suite: TLSCipherSuite,
                                    fromClient: Bool) {
        guard tls13 else { return }
        guard d.handshake.count + bytes.count <= Self.maxHandshake else {
            d.handshake = []
            return
        }
        d.handshake.append(contentsOf: bytes)
        var position = 0
        while d.handshake.count - position >= 4 {
            let size = Int(d.handshake[position + 1]) << 16 | Int(d.handshake[position + 2]) << 8
                | Int(d.handshake[position + 3])
            guard d.handshake.count - position - 4 >= size else { break }
            let type = d.handshake[position]
            let body = d.handshake[(position + 4)..<(position + 4 + size)]
            position += 4 + size
            switch type {
            case 8 where !fromClient:  // EncryptedExtensions
                chosenALPN = Self.alpn(in: Array(body))
            case 20 where !d.application:  // Finished: the traffic secret from the next record on
                if let secrets = keyLog.secrets(for: clientRandom),
                   let traffic = fromClient ? secrets.clientTraffic : secrets.serverTraffic {
                    Self.setTLS13(&d, suite, secret: traffic, application: true)
                } else if keyLog.grows {
                    d.needsTraffic = true
                } else {
                    d.failed = true
                    outcome = .failed(.keysMissing, "the key log has no traffic secrets for this connection")
                }
            case 24 where d.application:  // KeyUpdate
                let next = TLSKeySchedule.nextSecret(suite, after: d.secret)
                Self.setTLS13(&d, suite, secret: next, application: true)
            default:
                break
            }
        }
        d.handshake.removeFirst(position)
    }

    /// The protocol of the ALPN extension in an EncryptedExtensions body.
    private static func alpn(in body: [UInt8]) -> String? {
        var reader = TLSConversation.Reader(bytes: body)
        guard let total = reader.u16(), var extensions = reader.sub(Int(total)) else { return nil }
        while let type = extensions.u16(), let size = extensions.u16(), var data = extensions.sub(Int(size)) {
            if type == 0x0010, data.skip(2), let n = data.u8(), let name = data.take(Int(n)) {
                return String(decoding: name, as: UTF8.self)
            }
        }
        return nil
    }
}
