import Foundation
package import NavStateEngine
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Every accepted change, appended to `DIR/journal.<generation>` before it is answered
/// (`--data-dir`), in Redis's manner: with the snapshot, a restart after a crash of the process
/// loses nothing that was answered 2xx; after a crash of the machine, nothing either with
/// `--fsync always`, at most the last second of it with `everysec` (the default), or whatever
/// the system had not yet written with `no`.
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
    /// A command applied (issue 34): as `command`, with who made it (``SessionHistory/Author``)
    /// after the times, so that a session's history comes back whole.
    case change = 8
    /// The backend feed's items (``FeedItem/encode(_:)``), on their own: a feed file's records
    /// (``DataDirectory/keepFeed(before:store:)``).
    case feed = 9
    /// A record and the backend feed's items it made, in one frame, so that a torn write keeps
    /// both or neither: the feed's outbox. The inner record's payload (its length, then its
    /// bytes, tag first), then the items.
    case fed = 10
  }

  /// Guarded by `file`'s lock.
  private struct State: ~Copyable {
    var current: JournalFile
    /// Written since the last flush.
    var unsynced = false
    /// A flush of this generation's file failed (after which Linux may have dropped the pages
    /// and forgotten the error): the changes answered from it are in memory only, so no change
    /// is accepted until a snapshot that covers them is written (``snapshotWritten(firstJournal:)``).
    var unflushedGeneration: Int?
    /// The first journal generation of the last snapshot written: older files are covered.
    var snapshotFrom = 0
    /// Finished: nothing more is written, nor rotated.
    var finished = false

    var accepts: Bool { !finished && unflushedGeneration == nil && !current.damaged }

    /// A flush of `generation`'s file failed.
    mutating func flushFailed(_ generation: Int) {
      guard generation >= snapshotFrom else { return }
      unflushedGeneration = max(unflushedGeneration ?? generation, generation)
    }
  }

  package let directory: String
  public let policy: SyncPolicy
  /// Records are written under this lock, so the file holds whole records in order; flushes for
  /// `always` too (the group waits anyway), for `everysec` outside it.
  private let file: Mutex<State>
  /// With `always`: concurrent changes share one flush.
  private let groups = CommitGroups<[UInt8]>()

  /// Makes a file's writes durable: `fdatasync`, true if it succeeded (tests make it fail).
  private let flush: @Sendable (Int32) -> Bool

  /// Opens `journal.<generation>` in `directory` for appending (made if missing).
  package init(
    directory: String, generation: Int, policy: SyncPolicy,
    flush: @escaping @Sendable (Int32) -> Bool = { fdatasync($0) == 0 }
  ) throws(DataDirectory.Failure) {
    self.directory = directory
    self.policy = policy
    self.flush = flush
    file = Mutex(State(current: try Self.open(directory, generation)))
  }

  /// Opens (or makes) a generation's file, its directory entry on disk.
  private static func open(_ directory: String, _ generation: Int) throws(DataDirectory.Failure)
    -> JournalFile
  {
    let file = try JournalFile(path: path(directory, generation), generation: generation)
    try DataDirectory.syncDirectory(directory)
    return file
  }

  package static func path(_ directory: String, _ generation: Int) -> String {
    "\(directory)/journal.\(generation)"
  }

  package var generation: Int { file.withLock { $0.current.generation } }

  /// Appends one record (made by ``Record``) and returns once it is written (and flushed, with
  /// `always`); false when it could not be: the change must then be refused, since a restart
  /// would lose it.
  ///
  /// With `always`, group commit (``CommitGroups``): a flush takes hundreds of microseconds, and
  /// the changes that arrive meanwhile share the next one. With `everysec` and `no`, each record
  /// is copied into the file's map at once, under the lock: a copy takes well under a
  /// microsecond, and waiting in a group would cost more (two context switches) than it saves.
  package func append(_ record: consuming Record) -> Bool {
    receipt(for: record).confirmed()
  }

  /// ``append(_:)`` in two steps, for a caller that holds a lock: with `always`, the record
  /// takes its place in the next group now (the order of the calls is the order in the file),
  /// and is written and flushed when the receipt is waited for, with the lock let go. With
  /// `everysec` and `no`, the record is written now.
  package func receipt(for record: consuming Record, feed: [FeedItem] = []) -> StorageReceipt {
    let bytes = Record.withFeed(record, feed).sealed()
    guard policy == .always else { return write(bytes, flushing: false) ? .stored : .refused }
    return .pending(GroupFlush(journal: self, ticket: groups.enqueue(bytes)))
  }

  /// A record queued in a commit group: written and flushed with its group when waited for.
  private struct GroupFlush: StorageConfirmation {
    let journal: Journal
    let ticket: CommitGroups<[UInt8]>.Ticket

    func wait() -> Bool {
      journal.groups.wait(for: ticket) { journal.write($0, flushing: true) }
    }
  }

  /// With `always`, records are confirmed once their group is flushed (see ``receipt(for:)``).
  package var confirmsLater: Bool { policy == .always }

  /// Writes `bytes` whole or not at all: a full disk refuses them before anything is written,
  /// and the next change may try again (the disk may have room by then).
  private func write(_ bytes: [UInt8], flushing: Bool) -> Bool {
    file.withLock { file in
      guard file.accepts else { return false }
      let start = file.current.size
      guard file.current.append(bytes) else { return false }
      guard flushing else {
        file.unsynced = true
        return true
      }
      if flush(file.current.descriptor) { return true }
      // Refused, so the records must not come back should the pages reach the disk after all.
      _ = file.current.cut(to: start)
      file.flushFailed(file.current.generation)
      return false
    }
  }

  /// Flushes what was written since the last flush (for `everysec`), outside the lock: changes go
  /// on being written meanwhile.
  public func syncIfWritten() {
    let current = file.withLock { file -> JournalFile? in
      guard file.unsynced, !file.finished else { return nil }
      file.unsynced = false
      return file.current
    }
    guard let current, !flush(current.descriptor) else { return }
    // Linux may drop the pages of a failed flush and report success next time, even to the
    // flush that a rotation makes meanwhile.
    file.withLock { $0.flushFailed(current.generation) }
  }

  /// Starts the next generation: the current file is trimmed, flushed and closed, and later
  /// records go to a new one. Returns the new generation, which the snapshot that follows names
  /// first (and then reports with ``snapshotWritten(firstJournal:)``).
  package func rotate() throws(DataDirectory.Failure) -> Int {
    try file.withLock { (file) throws(DataDirectory.Failure) -> Int in
      guard !file.finished else {
        throw DataDirectory.Failure(description: "the journal in \(directory) is closed")
      }
      let generation = file.current.generation
      // Trimmed before the next file exists: only the last file may end in zeros.
      let trimmed = file.current.trim(flush: flush)
      if !trimmed.flushed { file.flushFailed(generation) }
      guard trimmed.cut else {
        throw DataDirectory.Failure(
          description:
            "cannot cut the unused end off \(Self.path(directory, generation)): \(trimmed.error)")
      }
      let next = generation + 1
      let opened = try Self.open(directory, next)
      // A refusal for a failed flush stays until the snapshot that covers it is written.
      file.current = opened
      file.unsynced = false
      return next
    }
  }

  /// A snapshot naming `firstJournal` first is on disk: the older files' changes are in it, so
  /// a failed flush of one of them no longer refuses changes.
  package func snapshotWritten(firstJournal: Int) {
    file.withLock { file in
      file.snapshotFrom = max(file.snapshotFrom, firstJournal)
      if let unflushed = file.unflushedGeneration, unflushed < firstJournal {
        file.unflushedGeneration = nil
      }
    }
  }

  /// Whether a failed flush refuses changes until a snapshot is written: the server then writes
  /// one at once, whatever its interval.
  public var needsSnapshot: Bool { file.withLock { !$0.finished && $0.unflushedGeneration != nil } }

  /// Trims and flushes the file; nothing more is written. Returns why the last records may not
  /// be on disk, or nil if they are.
  @discardableResult
  public func finish() -> String? {
    file.withLock { file -> String? in
      guard !file.finished else { return nil }
      file.finished = true
      let trimmed = file.current.trim(flush: flush)
      guard trimmed.flushed else {
        return "the last flush of \(Self.path(directory, file.current.generation)) failed"
      }
      return file.unflushedGeneration.map { "an earlier flush of journal.\($0) failed" }
    }
  }
}
