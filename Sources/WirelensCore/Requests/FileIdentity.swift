/// What identifies a file's contents cheaply: device, inode, size and modification time. A journal keyed by it
/// is not applied to a file that was replaced or changed since.
package struct FileIdentity: Sendable, Equatable, Hashable, Codable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    /// Modification time in nanoseconds since the epoch.
    package var modifiedNanos: Int64

    package init(device: UInt64, inode: UInt64, size: Int64, modifiedNanos: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedNanos = modifiedNanos
    }

    /// What differs in `other`, in words ("size 100 → 200 bytes", "modification time", "inode"); empty when nothing.
    package func differences(to other: FileIdentity) -> [String] {
        var changes: [String] = []
        if size != other.size { changes.append("size \(size) → \(other.size) bytes") }
        if modifiedNanos != other.modifiedNanos { changes.append("modification time") }
        if inode != other.inode || device != other.device { changes.append("inode") }
        return changes
    }
}
