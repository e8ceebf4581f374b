import NavStateEngine
import NavStateWire
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The backend feed in the data directory. Its items ride in the journal, in a `feed` record
/// written with the change that made them (the journal is the feed's outbox: one write, one
/// flush). Before a snapshot deletes journal files, their feed records are copied into a feed
/// file (`feed.<first journal after them>.<last item's number>`), deleted once every item in it
/// is older than the feed keeps. The feed's epoch (which its cursors carry) is kept in
/// `feed-epoch`.
extension DataDirectory {
  /// The feed's epoch: read, or drawn and written at the first start.
  func feedEpoch() throws(Failure) -> UInt32 {
    let file = path + "/feed-epoch"
    if let bytes = try Self.readFile(file),
      let epoch = UInt32(
        String(String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }), radix: 16),
      epoch != 0
    {
      return epoch
    }
    let epoch = UInt32.random(in: 1...UInt32.max)
    try Self.replace(file, with: Array(String(epoch, radix: 16).utf8), directory: path)
    return epoch
  }

  /// The feed files, oldest first: their journal generation and last item's number.
  func feedFiles() throws(Failure) -> [(generation: Int, last: UInt64, path: String)] {
    try fileNames(prefix: "feed.").compactMap { name in
      let parts = name.split(separator: ".")
      guard parts.count == 3, let generation = Int(parts[1]), let last = UInt64(parts[2]) else {
        return nil
      }
      return (generation, last, path + "/" + name)
    }.sorted { $0.generation < $1.generation }
  }

  /// The items of every `feed` record in `bytes` (a journal or feed file); a damaged record
  /// ends the reading (the sessions' own reading reports damage).
  static func feedItems(in bytes: [UInt8]) -> [FeedItem] {
    var items: [FeedItem] = []
    var offset = 0
    while offset + 8 <= bytes.count {
      let length = Int(uint32(bytes, at: offset))
      guard length >= 1, length <= bytes.count - offset - 8 else { break }
      let payload = Array(bytes[offset + 8..<offset + 8 + length])
      guard CRC32.checksum(payload) == uint32(bytes, at: offset + 4) else { break }
      offset += 8 + length
      var reader = ByteReader(payload, at: 1)
      switch Journal.Tag(rawValue: payload[0]) {
      case .feed: break
      case .fed:
        // Past the record the items ride with.
        guard let inner = reader.count(), reader.bytes(inner) != nil else { return items }
      default: continue
      }
      guard let decoded = FeedItem.decode(&reader) else { break }
      items += decoded
    }
    return items
  }

  /// The feed as it was: its epoch, and its items (the sessions' places in it, for the time
  /// each shows its screen since).
  func restoreFeed(into store: SessionStore) throws(Failure) {
    store.feedEpoch.store(try feedEpoch(), ordering: .relaxed)
    guard store.feed.isOn else { return }
    let items = try readFeed()
    store.feed.restore(items)
    var shownSince: [SessionID: Timestamp] = [:]
    for item in items where item.kind == .screenViewed {
      if let known = shownSince[item.session], known >= item.at { continue }
      shownSince[item.session] = item.at
    }
    store.forEachSession { record in
      guard let since = shownSince[record.key] else { return }
      record.data.withLock { $0.activeSince = since }
    }
  }

  /// Every feed item the directory holds, from its feed files and every journal file.
  func readFeed() throws(Failure) -> [FeedItem] {
    var items: [FeedItem] = []
    for file in try feedFiles() {
      if let bytes = try Self.readFile(file.path) { items += Self.feedItems(in: bytes) }
    }
    for generation in try journalGenerations() {
      if let bytes = try Self.readFile(Journal.path(path, generation)) {
        items += Self.feedItems(in: bytes)
      }
    }
    return items
  }

  /// Before journal files older than `firstJournal` are deleted: their feed items copied into
  /// a feed file, flushed, with every item the feed holds in memory that no feed file has yet
  /// (after a failed flush, the system may have dropped some of those files' pages: the feed in
  /// memory still has their items). Then feed files whose items the feed no longer keeps are
  /// deleted.
  func keepFeed(before firstJournal: Int, store: SessionStore) throws(Failure) {
    let files = try feedFiles()
    let filed = files.map(\.last).max() ?? 0
    let snapshot = store.feed.snapshot()
    // Items the feed no longer keeps are not worth keeping on disk either.
    let after = max(filed, snapshot.droppedThrough)
    var items: [FeedItem] = []
    for generation in try journalGenerations() where generation < firstJournal {
      guard let bytes = try Self.readFile(Journal.path(path, generation)) else { continue }
      items += Self.feedItems(in: bytes).filter { $0.sequence > after }
    }
    snapshot.forEach(after: after) { item in
      items.append(item)
      return true
    }
    items.sort { $0.sequence < $1.sequence }
    var unique: [FeedItem] = []
    unique.reserveCapacity(items.count)
    for item in items where item.sequence != unique.last?.sequence { unique.append(item) }
    if let last = unique.last?.sequence {
      var payload: [UInt8] = [Journal.Tag.feed.rawValue]
      payload += FeedItem.encode(unique)
      var records: [UInt8] = []
      Self.appendRecord(payload, to: &records)
      try Self.replace(path + "/feed.\(firstJournal).\(last)", with: records, directory: path)
    }
    for file in files where file.last <= snapshot.droppedThrough {
      unlink(file.path)
    }
  }
}
