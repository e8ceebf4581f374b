import Foundation
import NavJSON
import NavStateEngine
import NavigationCore

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

  /// Record kinds. Format 1 wrote `created` and `applied`; format 2 writes `session` and
  /// `command` instead, and both are read (a directory is upgraded at start, see
  /// ``DataDirectory/load(into:journal:)``).
  package enum Tag: UInt8 {
    /// Format 1: a new session, whole (``SessionArchive``).
    case created = 1
    /// Format 1: a request applied: session id, operation name, the request's JSON body,
    /// resulting version and times.
    case applied = 2
    /// A session ended (deleted or expired).
    case ended = 3
    /// An `Idempotency-Key` decided without a change (a refusal, or a change that changed
    /// nothing): session id, key and answer. A change's own key rides in its `applied` record.
    case decided = 4
    /// A command applied (format 2): session id, the graph's name and version it applied under,
    /// the command (``CommandCoding``), resulting version and times, and the `Idempotency-Key`
    /// it answered if any.
    case command = 5
    /// A new session, whole (format 2): the graph version it started under, then the archive.
    case session = 6
    /// A session moved to a newer version of its graph: session id, graph name, the version it
    /// left and the one it reached, resulting session version and times.
    case migrated = 7
  }

  /// Records waiting to be written together (group commit), and then how that went.
  private final class Batch: @unchecked Sendable {
    package var bytes: [UInt8] = []
    package var done = false
    package var written = false
  }

  /// Guarded by `condition`.
  private struct File {
    package var descriptor: Int32
    package var generation: Int
    /// Bytes of whole records in the file: where a failed write is cut back to.
    package var size: off_t
    /// Written since the last flush.
    package var unsynced = false
    /// The file may hold a partial record that could not be cut off, or a flush failed (after
    /// which Linux may have dropped the pages and forgotten the error): no change is accepted.
    package var broken = false
    /// Records waiting for the writer.
    package var waiting = Batch()
    /// A writer is at work; the next one takes what waits once it is done.
    package var writing = false
  }

  package let directory: String
  public let policy: SyncPolicy
  private let condition = NSCondition()
  private nonisolated(unsafe) var file: File

  /// Opens `journal.<generation>` in `directory` for appending (made if missing).
  package init(directory: String, generation: Int, policy: SyncPolicy) throws(DataDirectory.Failure)
  {
    self.directory = directory
    self.policy = policy
    let descriptor = try Self.openFile(Self.path(directory, generation))
    file = File(
      descriptor: descriptor, generation: generation, size: lseek(descriptor, 0, SEEK_END))
  }

  package static func path(_ directory: String, _ generation: Int) -> String {
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

  package var generation: Int { locked { $0.generation } }

  private func locked<Result>(_ body: (inout File) -> Result) -> Result {
    condition.lock()
    defer { condition.unlock() }
    return body(&file)
  }

  /// Appends one record and returns once it is written (and flushed, with `always`); false when
  /// it could not be: the change must then be refused, since a restart would lose it.
  ///
  /// Group commit, as PostgreSQL and Redis do it: records that arrive while a write is under way
  /// wait together, and the next writer (the first of them to find the file free) writes them
  /// all with one `write` and flushes them with one `fdatasync`. Each caller waits only until
  /// the batch holding its own record is done. A write that fails (a full disk) is cut off the
  /// file, so the file holds whole records only and the next change may try again.
  package func append(_ tag: Tag, _ body: [UInt8]) -> Bool {
    var record: [UInt8] = []
    record.reserveCapacity(body.count + 9)
    var payload = [tag.rawValue]
    payload += body
    Self.appendUInt32(UInt32(payload.count), to: &record)
    Self.appendUInt32(CRC32.checksum(payload), to: &record)
    record += payload

    condition.lock()
    defer { condition.unlock() }
    guard !file.broken else { return false }
    guard policy == .always else { return writeAlone(record) }
    let mine = file.waiting
    mine.bytes += record
    while !mine.done {
      guard !file.writing else {
        condition.wait()
        continue
      }
      // The file is free: write everything that waits, this record's batch included.
      let batch = file.waiting
      file.waiting = Batch()
      file.writing = true
      let (descriptor, start, sync) = (file.descriptor, file.size, policy == .always)
      condition.unlock()
      var written = Self.writeAll(batch.bytes, to: descriptor)
      var flushFailed = false
      if written, sync, fdatasync(descriptor) != 0 {
        written = false
        flushFailed = true
      }
      let cut = written || ftruncate(descriptor, start) == 0
      condition.lock()
      file.writing = false
      if written {
        file.size = start + off_t(batch.bytes.count)
        if !sync { file.unsynced = true }
      } else if !cut || flushFailed {
        file.broken = true
      }
      batch.written = written
      batch.done = true
      condition.broadcast()
    }
    return mine.written
  }

  /// Writes one record at once, under the lock (for `everysec` and `no`). A write takes a few
  /// microseconds: waiting in a group for another thread's write would cost more (two context
  /// switches) than it saves. Group commit pays where a flush takes hundreds.
  private func writeAlone(_ record: [UInt8]) -> Bool {
    let start = file.size
    guard Self.writeAll(record, to: file.descriptor) else {
      if ftruncate(file.descriptor, start) != 0 { file.broken = true }
      return false
    }
    file.size = start + off_t(record.count)
    file.unsynced = true
    return true
  }

  /// Flushes what was written since the last flush (for `everysec`).
  public func syncIfWritten() {
    let descriptor = locked { file -> Int32? in
      guard file.unsynced, !file.broken else { return nil }
      file.unsynced = false
      return file.descriptor
    }
    guard let descriptor, fdatasync(descriptor) != 0 else { return }
    // Linux may drop the pages of a failed flush and report success next time.
    locked { $0.broken = true }
  }

  /// Starts the next generation: the current file is flushed and closed, and later records go to
  /// a new one. Returns the new generation.
  package func rotate() throws(DataDirectory.Failure) -> Int {
    condition.lock()
    defer { condition.unlock() }
    // A batch being written belongs to the old file: wait for it.
    while file.writing { condition.wait() }
    let next = file.generation + 1
    let descriptor = try Self.openFile(Self.path(directory, next))
    _ = fdatasync(file.descriptor)
    close(file.descriptor)
    // A new file holds no partial record, and the snapshot that follows a rotation holds every
    // change the old one may have lost: changes may be tried again.
    file = File(descriptor: descriptor, generation: next, size: 0)
    return next
  }

  /// Flushes and closes the file; nothing more is written.
  public func finish() {
    condition.lock()
    defer { condition.unlock() }
    while file.writing { condition.wait() }
    guard !file.broken else { return }
    _ = fdatasync(file.descriptor)
    close(file.descriptor)
    file.broken = true
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

  package static func appendUInt32(_ value: UInt32, to bytes: inout [UInt8]) {
    for shift in stride(from: 0, to: 32, by: 8) {
      bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
    }
  }

  // MARK: Records

  /// A change; with `decided`, the `Idempotency-Key` it answered and the answer, in the same
  /// record, so that no restart can keep the change and lose the key.
  package static func command(
    _ record: SessionRecord, _ command: Command, data: SessionRecord.Data,
    decided: (key: String, decision: IdempotencyLedger.Decision)? = nil
  ) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(96)
    bytes.appendVarint(record.key.high)
    bytes.appendVarint(record.key.low)
    bytes.appendBlob(data.navigation.graph.name)
    bytes.appendVarint(UInt64(data.navigation.graphVersion))
    CommandCoding.append(command, to: &bytes)
    bytes.appendVarint(UInt64(data.navigation.version))
    bytes.appendVarint(Int(data.updatedAt.milliseconds))
    bytes.appendVarint(Int(data.expiresAt.milliseconds))
    if let decided {
      IdempotencyLedger.Decision.append(key: decided.key, decided.decision, to: &bytes)
    }
    return bytes
  }

  /// A new session: the graph version, then the whole session.
  package static func session(_ record: SessionRecord, _ data: SessionRecord.Data) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.appendVarint(UInt64(data.navigation.graphVersion))
    bytes += SessionArchive.encode(record, data)
    return bytes
  }

  package static func decided(
    _ record: SessionRecord, key: String, _ decision: IdempotencyLedger.Decision
  ) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(decision.body.count + 96)
    bytes.appendVarint(record.key.high)
    bytes.appendVarint(record.key.low)
    IdempotencyLedger.Decision.append(key: key, decision, to: &bytes)
    return bytes
  }

  package static func ended(_ record: SessionRecord) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.appendVarint(record.key.high)
    bytes.appendVarint(record.key.low)
    return bytes
  }
}

/// The engine writes through this: each record is the format-2 record of its kind.
extension Journal: SessionJournal {
  package func recordCreation(of session: SessionRecord, _ data: SessionRecord.Data) -> Bool {
    append(.session, Self.session(session, data))
  }

  package func recordChange(
    of session: SessionRecord, _ command: Command, data: SessionRecord.Data,
    decided: (key: String, decision: IdempotencyLedger.Decision)?
  ) -> Bool {
    append(.command, Self.command(session, command, data: data, decided: decided))
  }

  package func recordDecision(
    of session: SessionRecord, key: String, _ decision: IdempotencyLedger.Decision
  ) -> Bool {
    append(.decided, Self.decided(session, key: key, decision))
  }

  package func recordEnd(of session: SessionRecord) -> Bool {
    append(.ended, Self.ended(session))
  }

  package func recordMigration(of session: SessionRecord, data: SessionRecord.Data, from: Int)
    -> Bool
  {
    var bytes: [UInt8] = []
    bytes.appendVarint(session.key.high)
    bytes.appendVarint(session.key.low)
    bytes.appendBlob(data.navigation.graph.name)
    bytes.appendVarint(UInt64(from))
    bytes.appendVarint(UInt64(data.navigation.graphVersion))
    bytes.appendVarint(UInt64(data.navigation.version))
    bytes.appendVarint(Int(data.updatedAt.milliseconds))
    bytes.appendVarint(Int(data.expiresAt.milliseconds))
    return append(.migrated, bytes)
  }

  /// Saved as a file of its own beside the journal (see ``DataDirectory/graphFileName``),
  /// flushed before the version is loaded.
  package func recordGraph(_ version: GraphCatalog.Version) -> Bool {
    guard !version.source.isEmpty else { return true }
    let name = DataDirectory.graphFileName(version.graph.name, version.graph.version)
    do {
      try DataDirectory.replace(directory + "/" + name, with: version.source, directory: directory)
      return true
    } catch {
      return false
    }
  }
}
