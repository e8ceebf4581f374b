import NavJSON
public import NavStateEngine
import NavStateWire
import NavigationCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Start-up: the snapshot, then every journal record after it, replayed into the store.
extension DataDirectory {
  /// The record tags only format 1 of the journal wrote.
  static let formatOneTags: Set<UInt8> = [
    Journal.Tag.created.rawValue, Journal.Tag.applied.rawValue,
  ]

  /// The generations of the journal files in the directory, in order.
  package func journalGenerations() throws(Failure) -> [Int] {
    try fileNames(prefix: "journal.").compactMap { name in
      Int(name.dropFirst(8)).flatMap { $0 >= 0 ? $0 : nil }
    }.sorted()
  }

  /// What a start-up read back.
  public struct Loaded: Sendable {
    public var sessions: Int
    /// Journal records applied on top of the snapshot.
    public var replayed: Int
    /// A warning about a torn last journal record (a crash mid-write), dropped; nil if none.
    public var warning: String?
    /// Records of format 1 read (and the directory rewritten in format 2), if any.
    public var upgradedRecords = 0
  }

  /// Reads the snapshot and then the journal into `store`, and opens the journal for what comes
  /// next (with `policy`; nil: no journal, snapshots only).
  public func load(into store: SessionStore, journal policy: Journal.SyncPolicy?)
    throws(Failure) -> Loaded
  {
    try loadGraphs(into: store.catalog)
    try saveGraphs(of: store)
    var (sessions, firstJournal, hasSnapshot) = try readSnapshot(store)
    var byKey: [SessionID: SessionRecord] = [:]
    for record in sessions { byKey[record.key] = record }
    var replayed = 0
    var upgradedRecords = 0
    var warning: String?
    let all = try journalGenerations()
    // Older generations are covered by the snapshot (a crash can leave them behind).
    let generations = all.filter { $0 >= firstJournal }
    try checkComplete(generations, firstJournal: firstJournal, hasSnapshot: hasSnapshot)
    for (index, generation) in generations.enumerated() {
      let file = Journal.path(path, generation)
      guard let bytes = try Self.readFile(file) else { continue }
      let isLast = index == generations.count - 1
      var offset = 0
      while offset < bytes.count {
        let start = offset
        let remaining = bytes.count - offset
        let length = remaining >= 8 ? Int(Self.uint32(bytes, at: offset)) : -1
        let complete = length >= 1 && length <= remaining - 8
        let payload = complete ? Array(bytes[offset + 8..<offset + 8 + length]) : []
        let intact = complete && CRC32.checksum(payload) == Self.uint32(bytes, at: offset + 4)
        if !intact, isLast, Self.isTornEnd(bytes, at: start, length: length) {
          // The end of the last file, left by a crash: unused room allocated ahead of the
          // records (``JournalFile``), maybe after a record cut short or failing its checksum
          // (a crash in the middle of writing it; its change was never answered). Cut off, so
          // that the file reads clean once newer ones follow it.
          try Self.cut(file, to: start)
          if !bytes[start...].allSatisfy({ $0 == 0 }) {
            warning = "\(file): dropped a torn last record at offset \(start)"
          }
          break
        }
        if !intact {
          throw Failure(
            description: "\(file): damaged at offset \(start): a record fails its checksum")
        }
        offset += 8 + length
        // The feed's items are read apart (``readFeed()``), from every file.
        do {
          if try RecordReplay.replay(payload, into: &byKey, store: store) {
            replayed += 1
          }
          if Self.formatOneTags.contains(payload[0]) { upgradedRecords += 1 }
        } catch {
          throw Failure(description: "\(file): damaged at offset \(start): \(error.reason)")
        }
      }
    }
    sessions = Array(byKey.values)
    if let policy {
      let next = max(firstJournal, (generations.last ?? -1) + 1)
      let journal = try Journal(directory: path, generation: next, policy: policy)
      journalSlot.withLock { $0 = journal }
      store.attach(journal)
    }
    for record in sessions { store.restore(record) }
    try restoreFeed(into: store)
    if upgradedRecords > 0, journal != nil {
      // Written in format 2 at once: a snapshot starts a new journal file and deletes the old.
      try saveSnapshot(of: store)
    }
    return Loaded(
      sessions: sessions.count, replayed: replayed, warning: warning,
      upgradedRecords: upgradedRecords)
  }

  /// Refuses a directory that lacks a file its state is made of, so that nothing goes missing
  /// unnoticed. A snapshot names the first journal generation after it, and every snapshot
  /// starts a new generation, so the generations from there on are consecutive, the first one
  /// included; and a directory without a snapshot never had one only if its journal starts at
  /// generation 0.
  func checkComplete(_ generations: [Int], firstJournal: Int, hasSnapshot: Bool)
    throws(Failure)
  {
    if !hasSnapshot, let first = generations.first, first > 0 {
      throw Failure(
        description:
          "\(snapshotPath) is missing: the journal starts at generation \(first), so a snapshot covered the ones before it"
      )
    }
    var expected = hasSnapshot ? firstJournal : 0
    for generation in generations {
      guard generation == expected else {
        throw Failure(
          description:
            "\(Journal.path(path, expected)) is missing: the journal runs from generation \(hasSnapshot ? firstJournal : 0) to \(generations.last ?? firstJournal) without it"
        )
      }
      expected += 1
    }
    // A snapshot taken without a journal (nothing to rotate) names generation 0.
    if generations.isEmpty && firstJournal > 0 {
      throw Failure(
        description:
          "\(Journal.path(path, firstJournal)) is missing: \(snapshotPath) names it as the journal after it"
      )
    }
  }

  /// Whether the record that fails at `start` (its header's `length`; -1 when the file ends
  /// before a whole header) is where writing stopped, in the last file, after a crash:
  /// - the file ends before the record does (a record cut short);
  /// - only zeros follow the record (the room allocated ahead, after a record torn in it);
  /// - no record starts here (a zero length) and zeros run to the end of the page: room not yet
  ///   written when the page last reached the disk;
  /// - a whole page of zeros starts inside the record: room never written, which a crash of the
  ///   machine can leave in front of later pages that were written (the last second's, with
  ///   `everysec`).
  ///
  /// Anything else is damage: intact records after a failing one, with no unwritten page
  /// between, were written after it and answered.
  static func isTornEnd(_ bytes: [UInt8], at start: Int, length: Int) -> Bool {
    let page = 4096
    if length < 0 { return true }
    if length == 0 {
      let pageEnd = min((start / page + 1) * page, bytes.count)
      return bytes[start..<pageEnd].allSatisfy { $0 == 0 }
    }
    let frameEnd = min(start + 8 + length, bytes.count)
    if bytes[frameEnd...].allSatisfy({ $0 == 0 }) { return true }
    var pageStart = (start / page + 1) * page
    while pageStart < frameEnd, pageStart + page <= bytes.count {
      if bytes[pageStart..<pageStart + page].allSatisfy({ $0 == 0 }) { return true }
      pageStart += page
    }
    return false
  }

  /// Cuts `file` to `length` bytes, and flushes the cut.
  static func cut(_ file: String, to length: Int) throws(Failure) {
    let descriptor = open(file, O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0, ftruncate(descriptor, off_t(length)) == 0, fsync(descriptor) == 0 else {
      let reason = systemError()
      if descriptor >= 0 { close(descriptor) }
      throw Failure(description: "cannot cut \(file) to \(length) bytes: \(reason)")
    }
    close(descriptor)
  }
}
