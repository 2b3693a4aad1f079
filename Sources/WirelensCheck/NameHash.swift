/// The stable hash of a check's name that places it: in a shard (`Shard`) and within its interval (`Schedule`).
///
/// FNV-1a, 64 bits, over the name's UTF-8 bytes (offset basis 14695981039346656037, prime 1099511628211): the same
/// on every machine, every build and every run, unlike Swift's seeded `Hasher`, so that N instances agree on the
/// split and a restarted instance keeps each check's place.
package enum NameHash {
    /// FNV-1a 64 of the name's UTF-8 bytes.
    package static func fnv1a64(_ name: String) -> UInt64 {
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 1_099_511_628_211
        }
        return hash
    }
}
