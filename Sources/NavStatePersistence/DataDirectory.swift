public import NavJSON
public import NavStateEngine
import NavStateWire
public import NavigationCore
import Synchronization

#if canImport(Glibc)
  import Glibc
  private let systemRead = Glibc.read
#elseif canImport(Musl)
  import Musl
  private let systemRead = Musl.read
#endif

/// Where sessions outlive the process (`--data-dir`): a snapshot of every live session, written
/// on a graceful stop and every `--snapshot-interval` seconds, and the journal of every change
/// since (``Journal``), both read back at start-up.
///
/// The snapshot is records, each its length and CRC-32 (little-endian, 4 bytes each) and then
/// its bytes: a header, one record per session (``SessionArchive``), and a trailer with the
/// count. It is written to `snapshot.tmp`, flushed to disk, and renamed over `snapshot`, so a
/// crash while writing leaves the previous one whole. Any damage stops start-up with the file
/// and offset: sessions are never half loaded.
public final class DataDirectory: Sendable {
  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  public let path: String
  /// The journal opened by ``load(into:journal:)``, which the snapshots rotate.
  private let journalSlot = Mutex<Journal?>(nil)

  /// The journal new changes go to; nil before loading, or when loaded without one.
  public var journal: Journal? { journalSlot.withLock { $0 } }
  private static let magic = Array("navstate snapshot".utf8)
  /// 2: each session record starts with its graph's version (1 read as all at version 1).
  private static let formatVersion: UInt64 = 2
  private enum Tag: UInt8 {
    case header = 1
    case session = 2
    case trailer = 3
  }

  /// Opens the directory, making it if it does not exist.
  public init(path: String) throws(Failure) {
    self.path = path
    if mkdir(path, 0o700) != 0 && errno != EEXIST {
      throw Failure(description: "cannot make the data directory \(path): \(Self.systemError())")
    }
    var status = stat()
    guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
      throw Failure(description: "\(path) is not a directory")
    }
    guard access(path, W_OK) == 0 else {
      throw Failure(description: "cannot write in the data directory \(path)")
    }
    (directoryDescriptor, lockDescriptor) = try Self.takeOwnership(of: path)
  }

  /// The directory itself and `DIR/lock`, both locked (flock) for as long as this process
  /// lives: a second server on the same directory would overwrite the first one's snapshot and
  /// delete its journal. The kernel drops the locks when the process ends, however it ends, so a
  /// crash leaves nothing to clean up. The directory's lock is the one that counts: a file can
  /// be deleted and made anew under a running server (and a new one locked), the directory it
  /// is in cannot while it holds the journal. `DIR/lock` names the owner's process.
  private let directoryDescriptor: Int32
  private let lockDescriptor: Int32

  deinit {
    close(lockDescriptor)
    close(directoryDescriptor)
  }

  private static func takeOwnership(of path: String) throws(Failure) -> (Int32, Int32) {
    let directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard directory >= 0 else {
      throw Failure(description: "cannot open the data directory \(path): \(systemError())")
    }
    if flock(directory, LOCK_EX | LOCK_NB) != 0 {
      let busy = errno == EWOULDBLOCK
      let reason = systemError()
      close(directory)
      guard busy else { throw Failure(description: "cannot lock \(path): \(reason)") }
      throw inUse(path)
    }
    do throws(Failure) {
      return (directory, try lockFile(of: path))
    } catch {
      close(directory)
      throw error
    }
  }

  private static func inUse(_ path: String) -> Failure {
    let owner = (try? readFile(path + "/lock")).flatMap { $0 }.map {
      String(decoding: $0, as: UTF8.self)
    }
    let process =
      owner.flatMap { Int($0.split(separator: "\n").first ?? "") }.map { " (process \($0))" }
      ?? ""
    return Failure(
      description:
        "the data directory \(path) is in use by another navstate\(process), which holds the lock on the directory and on \(path)/lock; give this server a directory of its own"
    )
  }

  private static func lockFile(of path: String) throws(Failure) -> Int32 {
    let lockPath = path + "/lock"
    let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw Failure(description: "cannot open \(lockPath): \(systemError())")
    }
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
      let busy = errno == EWOULDBLOCK
      let reason = systemError()
      close(descriptor)
      guard busy else { throw Failure(description: "cannot lock \(lockPath): \(reason)") }
      throw inUse(path)
    }
    let pid = Array("\(getpid())\n".utf8)
    _ = ftruncate(descriptor, 0)
    _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    return descriptor
  }

  package var snapshotPath: String { path + "/snapshot" }

  /// Writes every live session; returns how many. With a journal, a new journal generation
  /// starts first, and the older ones, which the snapshot covers, are deleted once it is on disk.
  @discardableResult
  public func saveSnapshot(of store: SessionStore) throws(Failure) -> Int {
    let firstJournal = try journal?.rotate() ?? 0
    var bytes: [UInt8] = []
    try saveGraphs(of: store)
    var header: [UInt8] = [Tag.header.rawValue]
    header += Self.magic
    header.appendVarint(Self.formatVersion)
    header.appendVarint(UInt64(firstJournal))
    Self.appendRecord(header, to: &bytes)
    var count = 0
    store.forEachSession { record in
      let archived = record.data.withLock { data -> [UInt8]? in
        guard !data.ended else { return nil }
        var bytes: [UInt8] = [Tag.session.rawValue]
        bytes.appendVarint(UInt64(data.navigation.graphVersion))
        return bytes + SessionArchive.encode(record, data)
      }
      guard let archived else { return }
      Self.appendRecord(archived, to: &bytes)
      count += 1
    }
    var trailer: [UInt8] = [Tag.trailer.rawValue]
    trailer.appendVarint(UInt64(count))
    Self.appendRecord(trailer, to: &bytes)
    try Self.replace(snapshotPath, with: bytes, directory: path)
    journal?.snapshotWritten(firstJournal: firstJournal)
    for generation in try journalGenerations() where generation < firstJournal {
      unlink(Journal.path(path, generation))
    }
    return count
  }

  /// The record tags only format 1 of the journal wrote.
  private static let formatOneTags: Set<UInt8> = [
    Journal.Tag.created.rawValue, Journal.Tag.applied.rawValue,
  ]

  /// The generations of the journal files in the directory, in order.
  package func journalGenerations() throws(Failure) -> [Int] {
    guard let directory = opendir(path) else {
      throw Failure(description: "cannot list \(path): \(Self.systemError())")
    }
    defer { closedir(directory) }
    var generations: [Int] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
      }
      guard name.hasPrefix("journal."), let generation = Int(name.dropFirst(8)),
        generation >= 0
      else { continue }
      generations.append(generation)
    }
    return generations.sorted()
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
        do {
          if try replay(payload, into: &byKey, store: store) {
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
  private func checkComplete(_ generations: [Int], firstJournal: Int, hasSnapshot: Bool)
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

  /// Applies one journal record; false when the snapshot (or an earlier record) already has it.
  private func replay(
    _ payload: [UInt8], into sessions: inout [SessionID: SessionRecord], store: SessionStore
  ) throws(SessionArchive.Damage) -> Bool {
    var reader = ByteReader(payload, at: 1)
    func need<T>(_ value: T?, _ what: String) throws(SessionArchive.Damage) -> T {
      guard let value else { throw SessionArchive.Damage(reason: "cannot read its \(what)") }
      return value
    }
    switch Journal.Tag(rawValue: payload[0]) {
    case .created, .session:
      var graphVersion = 1
      if payload[0] == Journal.Tag.session.rawValue {
        graphVersion = try need(reader.natural(), "graph version")
      }
      let record = try SessionArchive.decode(
        Array(payload[reader.offset...]),
        graph: { store.catalog.graph($0, version: graphVersion) },
        configuration: store.configuration)
      guard sessions[record.key] == nil else { return false }
      sessions[record.key] = record
      return true
    case .applied:
      let key = SessionID(
        high: try need(reader.varint(), "id"), low: try need(reader.varint(), "id"))
      let operation = try need(reader.string(), "operation")
      let bodyLength = try need(reader.count(), "body")
      let body = Array(payload[reader.offset..<reader.offset + bodyLength])
      reader = ByteReader(payload, at: reader.offset + bodyLength)
      // Ended since, or already in the snapshot: nothing to do.
      guard let record = sessions[key] else { return false }
      return try Self.replay(
        try Self.command(operation, body), named: operation, after: &reader,
        to: record)
    case .command:
      let key = SessionID(
        high: try need(reader.varint(), "id"), low: try need(reader.varint(), "id"))
      let graph = try need(reader.string(), "graph")
      let graphVersion = try need(reader.natural(), "graph version")
      let command = try need(CommandCoding.read(&reader), "command")
      guard let record = sessions[key] else { return false }
      let (sessionGraph, sessionVersion) = record.data.withLock {
        ($0.navigation.graph.name, $0.navigation.graphVersion)
      }
      guard graph == sessionGraph, graphVersion == sessionVersion else {
        throw SessionArchive.Damage(
          reason:
            "its command applied under graph \(graph) version \(graphVersion), the session has \(sessionGraph) version \(sessionVersion)"
        )
      }
      return try Self.replay(command, named: "command", after: &reader, to: record)
    case .migrated:
      let key = SessionID(
        high: try need(reader.varint(), "id"), low: try need(reader.varint(), "id"))
      let graph = try need(reader.string(), "graph")
      let from = try need(reader.natural(), "graph version")
      let to = try need(reader.natural(), "graph version")
      guard let record = sessions[key] else { return false }
      let path = store.catalog.versions(of: graph, after: from, upTo: to)
      guard path.last?.version == to else {
        throw SessionArchive.Damage(reason: "version \(to) of graph \(graph) is not loaded")
      }
      return try Self.replayMigration(through: path, from: from, after: &reader, to: record)
    case .ended:
      let key = SessionID(
        high: try need(reader.varint(), "id"), low: try need(reader.varint(), "id"))
      return sessions.removeValue(forKey: key) != nil
    case .decided:
      let key = SessionID(
        high: try need(reader.varint(), "id"), low: try need(reader.varint(), "id"))
      let decided = try need(IdempotencyLedger.Decision.read(&reader), "key")
      guard let record = sessions[key] else { return false }
      return record.data.withLock { data in
        guard data.idempotency?.isDecided(decided.key) != true else { return false }
        data.settle(decided.key, with: decided.decision)
        return true
      }
    case nil:
      throw SessionArchive.Damage(reason: "unknown record")
    }
  }

  /// Applies `command` to `record` unless it already has it, reading the rest of its record
  /// (the version it made, its times and its `Idempotency-Key`) from `reader`.
  private static func replay(
    _ command: Command, named name: String, after reader: inout ByteReader, to record: SessionRecord
  ) throws(SessionArchive.Damage) -> Bool {
    guard let version = reader.natural(), let updated = reader.signed(),
      let expires = reader.signed()
    else { throw SessionArchive.Damage(reason: "cannot read its version and times") }
    let decided = try reader.isAtEnd ? nil : Self.decision(&reader)
    return try record.data.withLock { (data) throws(SessionArchive.Damage) -> Bool in
      guard data.navigation.version < version else { return false }
      if let decided { data.settle(decided.key, with: decided.decision) }
      let events: [NavigationEvent]
      do throws(NavigationError) {
        events = try data.navigation.apply(command)
      } catch {
        throw SessionArchive.Damage(reason: "its \(name) is refused on replay: \(error.detail)")
      }
      guard data.navigation.version == version else {
        throw SessionArchive.Damage(
          reason: "its \(name) gives version \(data.navigation.version), not \(version)")
      }
      for event in events { data.log.append(event) }
      data.updatedAt = Timestamp(milliseconds: Int64(updated))
      data.expiresAt = Timestamp(milliseconds: Int64(expires))
      data.accountedBytes = MemoryFootprint.session(data)
      return true
    }
  }

  /// Moves `record` through `path` unless it is past that already.
  private static func replayMigration(
    through path: [RouteGraph], from: Int, after reader: inout ByteReader,
    to record: SessionRecord
  ) throws(SessionArchive.Damage) -> Bool {
    guard let version = reader.natural(), let updated = reader.signed(),
      let expires = reader.signed()
    else { throw SessionArchive.Damage(reason: "cannot read its version and times") }
    return try record.data.withLock { (data) throws(SessionArchive.Damage) -> Bool in
      guard data.navigation.version < version else { return false }
      guard data.navigation.graphVersion == from else {
        throw SessionArchive.Damage(
          reason:
            "it migrates from graph version \(from), the session has \(data.navigation.graphVersion)"
        )
      }
      let migrated: (NavigationState, [NavigationEvent])
      do throws(NavigationError) {
        migrated = try data.navigation.migrated(
          through: path, isOpen: SessionStore.isOpen(in: data, under: path))
      } catch {
        throw SessionArchive.Damage(reason: "its migration is refused on replay: \(error.detail)")
      }
      data.navigation = migrated.0
      guard data.navigation.version == version else {
        throw SessionArchive.Damage(
          reason: "its migration gives version \(data.navigation.version), not \(version)")
      }
      for event in migrated.1 { data.log.append(event) }
      data.updatedAt = Timestamp(milliseconds: Int64(updated))
      data.expiresAt = Timestamp(milliseconds: Int64(expires))
      data.accountedBytes = MemoryFootprint.session(data)
      return true
    }
  }

  private static func decision(_ reader: inout ByteReader) throws(SessionArchive.Damage) -> (
    key: String, decision: IdempotencyLedger.Decision
  ) {
    guard let decided = IdempotencyLedger.Decision.read(&reader) else {
      throw SessionArchive.Damage(reason: "cannot read its key")
    }
    return decided
  }

  /// The command a format-1 journal record names, decoded as its request was (its body is a v1
  /// request body, which the wire format's decoder reads as the API did then).
  private static func command(_ operation: String, _ body: [UInt8])
    throws(SessionArchive.Damage) -> Command
  {
    if operation == "teardown" {
      guard let id = CoordinatorID(String(decoding: body, as: UTF8.self)) else {
        throw SessionArchive.Damage(reason: "a teardown names no coordinator")
      }
      return .teardown(id)
    }
    do {
      let json = body.isEmpty ? JSONValue.object(JSONObject()) : try JSONParser.parse(body)
      return try CommandDecoder.command(operation, body: json)
    } catch {
      throw SessionArchive.Damage(reason: "its \(operation) cannot be decoded: \(error)")
    }
  }

  /// The sessions of the snapshot, if there is one, and the first journal generation after it.
  private func readSnapshot(_ store: SessionStore) throws(Failure) -> (
    sessions: [SessionRecord], firstJournal: Int, exists: Bool
  ) {
    guard let bytes = try Self.readFile(snapshotPath) else { return ([], 0, false) }
    var firstJournal = 0
    var offset = 0
    var sessions: [SessionRecord] = []
    var sawHeader = false
    var expected: Int?
    var snapshotFormat: UInt64 = 1
    while offset < bytes.count {
      let start = offset
      func damaged(_ reason: String) -> Failure {
        Failure(description: "\(snapshotPath): damaged at offset \(start): \(reason)")
      }
      guard bytes.count - offset >= 8 else { throw damaged("a record is cut short") }
      let length = Int(Self.uint32(bytes, at: offset))
      let checksum = Self.uint32(bytes, at: offset + 4)
      offset += 8
      guard length >= 1, length <= bytes.count - offset else {
        throw damaged("a record is cut short")
      }
      let payload = Array(bytes[offset..<offset + length])
      offset += length
      guard CRC32.checksum(payload) == checksum else { throw damaged("checksum mismatch") }
      guard expected == nil else { throw damaged("records after the trailer") }
      switch Tag(rawValue: payload[0]) {
      case .header:
        var reader = ByteReader(payload, at: 1 + Self.magic.count)
        guard !sawHeader, payload.count > Self.magic.count,
          Array(payload[1..<1 + Self.magic.count]) == Self.magic
        else { throw damaged("not a navstate snapshot") }
        guard let format = reader.varint(), format >= 1, format <= Self.formatVersion else {
          throw damaged("a snapshot format this version does not read")
        }
        snapshotFormat = format
        guard let generation = reader.natural() else { throw damaged("no journal generation") }
        firstJournal = generation
        sawHeader = true
      case .session:
        guard sawHeader else { throw damaged("no header") }
        do throws(SessionArchive.Damage) {
          var reader = ByteReader(payload, at: 1)
          var graphVersion = 1
          if snapshotFormat >= 2 {
            guard let version = reader.natural() else {
              throw SessionArchive.Damage(reason: "cannot read its graph version")
            }
            graphVersion = version
          }
          sessions.append(
            try SessionArchive.decode(
              Array(payload[reader.offset...]),
              graph: { store.catalog.graph($0, version: graphVersion) },
              configuration: store.configuration))
        } catch {
          throw damaged("session \(sessions.count + 1): \(error.reason)")
        }
      case .trailer:
        var reader = ByteReader(payload, at: 1)
        guard let count = reader.natural(), count == sessions.count else {
          throw damaged("the trailer counts other sessions than the file holds")
        }
        expected = count
      case nil:
        throw damaged("unknown record")
      }
    }
    guard expected != nil else {
      throw Failure(description: "\(snapshotPath): damaged at offset \(offset): no trailer")
    }
    return (sessions, firstJournal, true)
  }

  private static func appendRecord(_ payload: [UInt8], to bytes: inout [UInt8]) {
    appendUInt32(UInt32(payload.count), to: &bytes)
    appendUInt32(CRC32.checksum(payload), to: &bytes)
    bytes += payload
  }

  private static func appendUInt32(_ value: UInt32, to bytes: inout [UInt8]) {
    for shift in stride(from: 0, to: 32, by: 8) {
      bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
    }
  }

  private static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    (0..<4).reduce(0) { value, index in value | UInt32(bytes[offset + index]) << (8 * index) }
  }

  // MARK: Files

  private static func systemError() -> String { String(cString: strerror(errno)) }

  /// The whole file, or nil if there is none.
  package static func readFile(_ path: String) throws(Failure) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    if descriptor < 0 {
      var link = stat()
      // Missing is fine (a directory that never had one); a link to nothing is damage.
      if errno == ENOENT, lstat(path, &link) != 0 { return nil }
      throw Failure(description: "cannot open \(path): \(systemError())")
    }
    defer { close(descriptor) }
    var status = stat()
    // A device or a pipe in its place could be read forever (/dev/zero never ends).
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      throw Failure(description: "\(path) is not a regular file")
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw Failure(description: "cannot read \(path): \(systemError())")
      }
      if count == 0 { return bytes }
      bytes += chunk[0..<count]
    }
  }

  /// Writes `bytes` to `path` whole or not at all: a temporary file, flushed, renamed over it.
  package static func replace(_ path: String, with bytes: [UInt8], directory: String)
    throws(Failure)
  {
    let temporary = path + ".tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw Failure(description: "cannot write \(temporary): \(systemError())")
    }
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes {
        write(descriptor, $0.baseAddress! + written, $0.count - written)
      }
      if count < 0 {
        if errno == EINTR { continue }
        let message = systemError()
        close(descriptor)
        // A partial file would only take the space a retry needs (a full disk).
        unlink(temporary)
        throw Failure(description: "cannot write \(temporary): \(message)")
      }
      written += count
    }
    guard fsync(descriptor) == 0 else {
      let message = systemError()
      close(descriptor)
      unlink(temporary)
      throw Failure(description: "cannot flush \(temporary): \(message)")
    }
    close(descriptor)
    guard rename(temporary, path) == 0 else {
      throw Failure(description: "cannot rename \(temporary) to \(path): \(systemError())")
    }
    // The rename itself is on disk once the directory is.
    try syncDirectory(directory)
  }

  /// Flushes `directory`'s entries (a file made, renamed or deleted in it).
  package static func syncDirectory(_ directory: String) throws(Failure) {
    let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0, fsync(descriptor) == 0 else {
      let reason = systemError()
      if descriptor >= 0 { close(descriptor) }
      throw Failure(description: "cannot flush the directory \(directory): \(reason)")
    }
    close(descriptor)
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
  private static func isTornEnd(_ bytes: [UInt8], at start: Int, length: Int) -> Bool {
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
  private static func cut(_ file: String, to length: Int) throws(Failure) {
    let descriptor = open(file, O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0, ftruncate(descriptor, off_t(length)) == 0, fsync(descriptor) == 0 else {
      let reason = systemError()
      if descriptor >= 0 { close(descriptor) }
      throw Failure(description: "cannot cut \(file) to \(length) bytes: \(reason)")
    }
    close(descriptor)
  }
}
