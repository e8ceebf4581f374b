import NavJSON
import NavigationCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Every accepted change, appended to `DIR/journal.<generation>` before it is answered
/// (`--data-dir`), in Redis's manner: with the snapshot, a restart after a crash loses nothing
/// that was answered 2xx (with `--fsync always`), or at most the last second of it
/// (`everysec`, the default), or whatever the system had not yet written (`no`).
///
/// Records are framed as in the snapshot (length, CRC-32, bytes). A snapshot starts a new
/// generation first, so the journal files it covers can then be deleted; a change that lands in
/// both is told apart on replay by its version.
public final class Journal: Sendable {
  public enum SyncPolicy: String, Sendable, CaseIterable {
    /// Flushed to disk before each answer.
    case always
    /// Flushed once a second (by ``syncIfWritten()``).
    case everysec
    /// Left to the system.
    case no
  }

  enum Tag: UInt8 {
    /// A new session, whole (``SessionArchive``).
    case created = 1
    /// A command applied: session id, operation, body, resulting version and times.
    case applied = 2
    /// A session ended (deleted or expired).
    case ended = 3
    /// An `Idempotency-Key` decided without a change (a refusal, or a change that changed
    /// nothing): session id, key and answer. A change's own key rides in its `applied` record.
    case decided = 4
  }

  private struct File {
    var descriptor: Int32
    var generation: Int
    /// Written since the last flush.
    var unsynced = false
    /// A write failed: the journal no longer holds every change, so none is accepted.
    var broken = false
  }

  let directory: String
  public let policy: SyncPolicy
  private let file: Mutex<File>

  /// Opens `journal.<generation>` in `directory` for appending (made if missing).
  init(directory: String, generation: Int, policy: SyncPolicy) throws(DataDirectory.Failure) {
    self.directory = directory
    self.policy = policy
    let descriptor = try Self.openFile(Self.path(directory, generation))
    file = Mutex(File(descriptor: descriptor, generation: generation))
  }

  static func path(_ directory: String, _ generation: Int) -> String {
    "\(directory)/journal.\(generation)"
  }

  private static func openFile(_ path: String) throws(DataDirectory.Failure) -> Int32 {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw DataDirectory.Failure(
        description: "cannot open \(path): \(String(cString: strerror(errno)))")
    }
    return descriptor
  }

  var generation: Int { file.withLock { $0.generation } }

  /// Appends one record (flushed first with `always`); false when it could not be written, and
  /// from then on (the change must then be refused: it would be lost on a restart).
  func append(_ tag: Tag, _ body: [UInt8]) -> Bool {
    var record: [UInt8] = []
    record.reserveCapacity(body.count + 9)
    let payloadLength = UInt32(body.count + 1)
    var payload = [tag.rawValue]
    payload += body
    Self.appendUInt32(payloadLength, to: &record)
    Self.appendUInt32(CRC32.checksum(payload), to: &record)
    record += payload
    return file.withLock { file in
      guard !file.broken else { return false }
      guard Self.writeAll(record, to: file.descriptor) else {
        file.broken = true
        return false
      }
      if policy == .always {
        guard fdatasync(file.descriptor) == 0 else {
          file.broken = true
          return false
        }
      } else {
        file.unsynced = true
      }
      return true
    }
  }

  /// Flushes what was written since the last flush (for `everysec`).
  public func syncIfWritten() {
    let descriptor = file.withLock { file -> Int32? in
      guard file.unsynced else { return nil }
      file.unsynced = false
      return file.descriptor
    }
    if let descriptor { _ = fdatasync(descriptor) }
  }

  /// Starts the next generation: the current file is flushed and closed, and later records go to
  /// a new one. Returns the new generation.
  func rotate() throws(DataDirectory.Failure) -> Int {
    let next = try file.withLock { (file) throws(DataDirectory.Failure) -> Int in
      let next = file.generation + 1
      let descriptor = try Self.openFile(Self.path(directory, next))
      _ = fdatasync(file.descriptor)
      close(file.descriptor)
      file = File(descriptor: descriptor, generation: next)
      return next
    }
    return next
  }

  /// Flushes and closes the file; nothing more is written.
  public func finish() {
    file.withLock { file in
      guard !file.broken else { return }
      _ = fdatasync(file.descriptor)
      close(file.descriptor)
      file.broken = true
    }
  }

  private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes {
        write(descriptor, $0.baseAddress! + written, $0.count - written)
      }
      if count < 0 {
        if errno == EINTR { continue }
        return false
      }
      written += count
    }
    return true
  }

  static func appendUInt32(_ value: UInt32, to bytes: inout [UInt8]) {
    for shift in stride(from: 0, to: 32, by: 8) {
      bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
    }
  }

  // MARK: Records

  /// A change; with `decided`, the `Idempotency-Key` it answered and the answer, in the same
  /// record, so that no restart can keep the change and lose the key.
  static func applied(
    _ record: SessionRecord, operation: String, body: [UInt8], data: SessionRecord.Data,
    decided: (key: String, decision: IdempotencyLedger.Decision)? = nil
  ) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(body.count + 48)
    bytes.appendVarint(record.key.high)
    bytes.appendVarint(record.key.low)
    bytes.appendBlob(operation)
    bytes.appendVarint(UInt64(body.count))
    bytes += body
    bytes.appendVarint(UInt64(data.navigation.version))
    bytes.appendVarint(Int(data.updatedAt.milliseconds))
    bytes.appendVarint(Int(data.expiresAt.milliseconds))
    if let decided {
      IdempotencyLedger.Decision.append(key: decided.key, decided.decision, to: &bytes)
    }
    return bytes
  }

  static func decided(
    _ record: SessionRecord, key: String, _ decision: IdempotencyLedger.Decision
  ) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(decision.body.count + 96)
    bytes.appendVarint(record.key.high)
    bytes.appendVarint(record.key.low)
    IdempotencyLedger.Decision.append(key: key, decision, to: &bytes)
    return bytes
  }

  static func ended(_ record: SessionRecord) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.appendVarint(record.key.high)
    bytes.appendVarint(record.key.low)
    return bytes
  }
}
